"""The rank-and-flank battle, shared by the systems that fight in ranked blocks (The 9th Age;
Warhammer Fantasy Battle 8th edition next): shooting, melee, combat score, Break Tests, flee
and pursuit, Panic Tests. docs/combat-pipeline.md "The rank-and-flank battle pipeline".

* `system`: `RankAndFlankRules`, what a system must declare and may override; a system puts
  one on its `GameSystem` as `rank_and_flank`.
* `attacks`: a batch of attacks step by step (to hit, to wound, armour, special save) and
  allocating the losses (rank-and-file, then characters).
* `engagement`: who is in which combat, who fights (contact, supporting ranks).
* `events`: the log of an action, `attack_step`, `hp_lost`, `unit_broke` and their folders.
* `shooting`: the `shoot` action.
* `melee`: the `fight_combat` action, one round: strike order, strikes, then
* `combat_result`: the combat score, and
* `break_test`: the loser's Break Tests, flee and pursuit, Panic Tests.

Importing this package imports only the interface; server/rules/__init__.py imports the action
modules after every system package, since they register `shoot` and `fight_combat` for the
systems that declare rank-and-flank rules.
"""
