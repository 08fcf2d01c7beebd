// The shapes the server sends and the client sends back, for the type checker (JSDoc only: this
// module exports nothing at run time). The server's projection is the source of truth
// (server/games/service.py `project`, docs/protocol.md); fields the client does not read are
// left out, and a field may be absent on an older server, hence the many optionals.

/** @typedef {{x:number, y:number}} Pt  a point on the table, inches */
/** @typedef {[number, number]} Pos */

/**
 * A GeoJSON geometry as the server sends it (server/geometry `to_geojson`), by its `type`:
 * the depth of `coordinates` follows from it.
 * @typedef {{type:'Point', coordinates:number[]}
 *   | {type:'LineString'|'MultiPoint', coordinates:number[][]}
 *   | {type:'Polygon'|'MultiLineString', coordinates:number[][][]}
 *   | {type:'MultiPolygon', coordinates:number[][][][]}
 *   | {type:'GeometryCollection', geometries:Geometry[]}} Geometry
 */

/**
 * @typedef {Object} Feature
 * @property {Geometry} geometry
 * @property {{role?:string, centre?:number[], facing?:number, index?:number, corners?:number[][]}} [properties]
 */

/** @typedef {{x:number, y:number, facing:number}} Placement */

/**
 * A unit as the viewer's projection carries it.
 * @typedef {Object} Unit
 * @property {string} id
 * @property {number} owner
 * @property {string} [name]
 * @property {string} [status]      'on_table', 'reserve', 'ambush', 'destroyed'…
 * @property {string} [datasheet]
 * @property {Placement|null} [placement]  ranked units: front-edge centre and facing
 * @property {number[][]} [positions]      model-by-model units: each model's centre
 * @property {number} [files]
 * @property {number} [models]
 * @property {JoinedCharacter[]} [characters]
 * @property {number} [damage]            wounds lost by the one wounded rank-and-file model
 * @property {string[]} [markers]
 * @property {string[]} [rules]
 * @property {{type?:string, features?:Feature[]}|null} [footprint]
 * @property {string[]} [not_automated]   printed rules no handler automates (server/rules/automation.py)
 * @property {Record<string, string>} [partly_automated]  printed rule -> what is and is not automated
 * @property {Record<string, unknown>} [moved]   this phase's move record (mode, used, advanced…)
 * @property {string|null} [engaged_with]  ranked: the enemy unit it fights
 */

/**
 * A character joined to a unit (server/rules/units.py `JoinedCharacter.to_json`).
 * @typedef {Object} JoinedCharacter
 * @property {string} datasheet
 * @property {string} [name]
 * @property {number} [damage]
 */

/**
 * @typedef {Object} Token
 * @property {string} id
 * @property {number} owner
 * @property {string} label
 * @property {string} [name]
 * @property {number} x
 * @property {number} y
 * @property {number} facing
 * @property {number} width
 * @property {number} depth
 */

/**
 * The game state as this viewer sees it.
 * @typedef {Object} GameState
 * @property {string} [name]
 * @property {string} [system]
 * @property {string} [stage]          'setup', 'deployment', 'battle'…
 * @property {string} [phase]
 * @property {number|null} [active_player]
 * @property {{width:number, depth:number}} [battlefield]
 * @property {Record<string, Unit>} [units]
 * @property {Record<string, Token>} [tokens]
 * @property {Record<string, string>} [ambush_hosts]
 * @property {number} [seq]              the last event folded in
 * @property {string} [id]
 * @property {unknown} [dice_commitment]
 * @property {Record<string, boolean>} [seats]
 * @property {number|null} [deploying]   the seat deploying now
 * @property {number[]} [armies_submitted]
 * @property {Record<string, Geometry>} [deployment_zones]
 * @property {Terrain[]} [terrain]
 * @property {string[]} [phases]
 * @property {number} [turn]
 * @property {number} [turns]
 * @property {number} [player_turn]
 * @property {boolean} [over]
 * @property {number|null} [winner]
 * @property {{seq:number, type:string, actor:unknown}[]} [undoable]
 * @property {Proposal|null} [proposal]
 * @property {PendingCharge|null} [pending_charge]
 * @property {Record<string, Record<string, unknown>>} [magic]  per seat, per player turn: the spells recorded
 * @property {string|null} [secondary_objective]  t9a: the Secondary Objective played (id)
 * @property {string|null} [secondary_objective_name]
 * @property {Record<string, number>} [objective_counters]  t9a Hold the Ground: counters per seat
 * @property {OrdersView} [orders]     what this viewer may order now (server/rules/orders.py)
 * @property {FortyView} [forty]       wh40k10 only, from deployment's end (server/rules/wh40k10/command.py)
 * @property {PregameView} [pregame]   server/rules/pregame.py
 * @property {Record<string, number>} [concealed]  whfb8: Fanatics each of the viewer's units conceals (owner only)
 * @property {FanaticRelease[]} [fanatic_releases]  whfb8: releases waiting for their owner
 * @property {Record<string, {from?:string, released?:unknown, moved?:unknown}>} [fanatics]  whfb8: Fanatics on the table
 * @property {string[]} [resolution_waiting]  what waits for the releases (server/rules/resume.py)
 * @property {Record<string, PendingEmergence>} [entombed]  whfb8: emergences waiting, per unit
 * @property {import('./ui/result.js').GameResult|null} [game_result]  server/rules/endgame.py
 * @property {Record<string, Datasheet>} [own_datasheets]  the units of your own of both armies, by id (server/rules/setup.py `_project_armies`)
 */

/**
 * A Fanatic release waiting for its owner (server/rules/whfb8/fanatics.py).
 * @typedef {Object} FanaticRelease
 * @property {string} unit         the unit concealing the Fanatics
 * @property {number} owner
 * @property {number} left         Fanatics still to release
 * @property {string} interrupted  the unit whose move stopped for it
 */

/**
 * A whfb8 Entombed emergence waiting (server/rules/whfb8/entombed.py `pending`).
 * @typedef {Object} PendingEmergence
 * @property {string} mode            'marker', 'enemy' or 'edge'
 * @property {number[]|null} [marker]
 * @property {string|null} [enemy]
 * @property {string|null} [edge]
 * @property {Placement|null} [suggested]
 * @property {number[][]|null} [outline]
 */

/**
 * The pre-game roll-offs and choices (server/rules/pregame.py `_project_pregame`).
 * @typedef {Object} PregameView
 * @property {string} mode
 * @property {{seat:number, about:string}|null} [pending]  the choice waiting, and whose it is
 * @property {number|null} [finished_first]
 * @property {Record<string, number>} [roll_offs_won]
 * @property {Record<string, number>} [chosen]
 * @property {string|null} [deployment_words]
 * @property {string|null} [first_turn_words]
 */

/**
 * What wh40k10 projects for everyone from the battle on (server/rules/wh40k10/command.py
 * `_project_forty`, stratagems.py `_project_stratagems`); seats are string keys ("1", "2").
 * @typedef {Object} FortyView
 * @property {Record<string, number>} cp
 * @property {Record<string, number>} vp
 * @property {{used:number[], active:number[]}} [waaagh]
 * @property {string[]} [battle_shocked]
 * @property {string[]} [roared]
 * @property {FortyObjective[]} [objectives]
 * @property {string[]} [fights_first]
 * @property {{seat:number|null, units:string[]}} [fight_next]
 * @property {Record<string, string[]>} [allocation]
 * @property {Record<string, string[]>} [model_order]
 * @property {Record<string, FortyModel[]>} [models]
 * @property {Record<string, number>} [starting_strength]
 * @property {Record<string, string[]>} [engaged]
 * @property {Record<string, unknown>} [stratagems]
 */

/** @typedef {{id:string, name:string, wounds:number, lost:number, character:boolean}} FortyModel  one model of a 40k unit */

/**
 * An objective marker with who controls it (server/rules/wh40k10/command.py `control`).
 * @typedef {Object} FortyObjective
 * @property {string} id
 * @property {number} x
 * @property {number} y
 * @property {Record<string, number>} oc   each side's Objective Control, by seat
 * @property {number|null} controller
 */

/** One die as a roll's payload carries it (server/dice.py `Die.to_payload`).
 * @typedef {{face:number, kept:boolean, raw?:number, rerolled?:boolean}} Die */

/**
 * A roll as events carry it (server/dice.py `Roll.to_payload`).
 * @typedef {Object} Roll
 * @property {string} expression
 * @property {Die[]} dice
 * @property {number|null} total
 * @property {number} [start]
 * @property {number} [end]
 * @property {Record<string, unknown>} [extra]
 */

// --- the orders the server offers (server/rules/orders.py and the offers each rule registers) --

/**
 * An order as every offer has it (server/rules/orders.py `offer`): the action type to send,
 * whether it may be given now, and why not in words. The offers add what the order needs.
 * @typedef {Object} Offer
 * @property {string} action
 * @property {boolean} available
 * @property {string|null} reason
 * @property {string|null} [rule]
 */

/** @typedef {{available:boolean, reason:string|null}} Choice  a part of an order that may be refused on its own */

/**
 * An enemy unit a charge order may target (server/rules/charge.py `charge_targets`).
 * @typedef {Object} ChargeTarget
 * @property {string} unit
 * @property {boolean} available
 * @property {string|null} reason
 * @property {number|null} distance
 */

/** @typedef {Offer & {targets:ChargeTarget[]}} ChargeOffer  `declare_charge` (ranked), `charge` (40k) */

/** @typedef {{reaction:string, name:string, available:boolean, reason:string|null, rule:string|null}} ReactionChoice */
/** @typedef {Offer & {charger:string, reactions:ReactionChoice[]}} ReactionOffer  `charge_reaction` */
/** @typedef {{reaction:string, name:string, available:boolean, reason?:string|null, unit?:string, weapons?:string[], action:Action}} ChargeAnswerChoice */
/**
 * `charge_answer` (wh40k10, server/rules/wh40k10/stratagems.py): for the charged player while a
 * declared charge waits, before its roll: Fire Overwatch with each unit that can, or Decline,
 * each with the action it sends.
 * @typedef {Offer & {answer:string, charger:string, targets:string[], cost:number, cp:number, reactions:ChargeAnswerChoice[], text?:string}} ChargeAnswerOffer
 */

/** @typedef {Choice & {cost?:number, allowance?:number}} ManoeuvreChoice */
/**
 * One mode of a ranked unit's move (server/rules/moves.py `_offer_move_unit`).
 * @typedef {Choice & {allowance:number, used:number, left:number, manoeuvres:Record<string, ManoeuvreChoice>}} MoveMode
 */
/** @typedef {Offer & {mode?:string|null, modes?:Record<string, MoveMode>, reform_centre?:boolean}} MoveOffer  `move_unit` */
/** @typedef {Offer & {move:number}} AdvanceOffer  `advance` (40k): the Move the die is added to */
/** @typedef {Offer & {allowance?:number, advance?:boolean}} ModelsMoveOffer  `move_models` */
/** @typedef {Offer & {cost?:string, desperate_escape?:boolean}} FallBackOffer  `fall_back` (40k) */
/** @typedef {Offer & {allowance?:number|Record<string, number>}} SkirmishOffer  `skirmish_move` (per mode), `vanguard_move` */

/** @typedef {{name:string, range:number, area:Geometry|null}} RankedWeapon  a shooting weapon and the area it reaches */
/**
 * An enemy unit a ranked unit's Shoot may target (server/rules/rankandflank/shooting.py).
 * @typedef {Object} RankedShootTarget
 * @property {string} unit
 * @property {boolean} available
 * @property {string|null} reason
 * @property {string[]} weapons     the weapons that may shoot at it
 * @property {number|null} distance
 * @property {number|null} seen
 * @property {string|null} cover
 */
/** @typedef {Offer & {weapons:RankedWeapon[], targets:RankedShootTarget[]}} ShootOffer  `shoot` (ranked) */

/**
 * A 40k weapon as its models use it now (server/rules/wh40k10/offers.py `_profile`).
 * @typedef {Object} FortyWeapon
 * @property {string} name
 * @property {number} models       how many models carry it
 * @property {number} [range]
 * @property {number|string} A
 * @property {number|null} skill
 * @property {number|string} S
 * @property {number} AP
 * @property {number|string} D
 * @property {string[]} abilities
 * @property {boolean} [pistol]
 * @property {boolean} [available]  ranged: what the unit's own state allows
 * @property {string|null} [reason]
 */
/** @typedef {{weapon:string, available:boolean, reason:string|null, rule:string|null, models_in_range:number}} WeaponCheck */
/**
 * An enemy unit a 40k Shoot or Fight may target (server/rules/wh40k10/offers.py).
 * @typedef {Object} FortyTarget
 * @property {string} unit
 * @property {string} name
 * @property {number} distance
 * @property {boolean} available
 * @property {string|null} reason
 * @property {number[][]} [line]      Shoot: the closest points
 * @property {boolean} [visible]
 * @property {number} [seen]
 * @property {boolean} [cover]
 * @property {boolean} [engaged]
 * @property {string[]} [weapons]     Shoot: the weapons that may fire at it
 * @property {string[]} [suggested]   Shoot: the weapons fired unless the player picks
 * @property {WeaponCheck[]} [checks]
 * @property {number} [fighting]      Fight: how many of the unit's models fight it as they stand
 * @property {number} [models]        Fight: the unit's models
 */
/** @typedef {Offer & {weapons:FortyWeapon[], targets:FortyTarget[]}} FortyAttackOffer  `shoot_weapons`, `fight` (40k) */
/** @typedef {Offer & {targets:string[], range:number}} ChargeMoveOffer  `charge_move` (40k): the targets and the roll */
/** @typedef {{id:string, name:string, wounded:boolean}} CasualtyModel  one model in a casualty order */
/** @typedef {Offer & {models:string[], order?:string[], casualties?:CasualtyModel[], chosen?:boolean, suggested?:{type:string, unit:string, order:string[]}, leaders?:string[], leaders_reason?:string|null}} AllocationOffer  `set_allocation_order` */
/** @typedef {Offer & {where?:string, enemy_gap_in?:number, edge_band_in?:number}} ReservesArrivalOffer  `arrive_from_reserves` */
/** @typedef {Offer & {mode?:string}} ReserveOffer  `declare_reserve`: `rule` names the reserve rule */
/** @typedef {Offer & {zone?:number, files?:number, facing?:number, outlines?:Record<string, number[][]>}} DeployOffer  `deploy_unit` (outlines per frontage, ranked) */
/** @typedef {{unit:string, available:boolean, reason:string|null}} HostChoice */
/** @typedef {Offer & {host?:string|null, hosts:HostChoice[]}} AmbushHostOffer  `choose_ambush_host` (t9a) */
/** @typedef {Offer & {suggested?:{point:number[], x:number, y:number, facing:number}}} AmbushArrivalOffer  `arrive_from_ambush` (t9a) */
/** @typedef {Offer & {entombed?:boolean, marker?:boolean}} EmergeOffer  `emerge` (whfb8) */
/** @typedef {Offer & {combat?:string[]}} CombatOffer  `fight_combat` (ranked): the units of the combat */
/** @typedef {Offer & {restrained?:boolean}} RestrainOffer  `restrain_pursuit` */

/**
 * The order for each unit-order key (server/rules/*: `register_offer`).
 * @typedef {Object} UnitOffers
 * @property {MoveOffer} move_unit
 * @property {AdvanceOffer} advance
 * @property {ModelsMoveOffer} move_models
 * @property {FallBackOffer} fall_back
 * @property {SkirmishOffer} skirmish_move
 * @property {SkirmishOffer} vanguard_move
 * @property {ChargeOffer} declare_charge
 * @property {ChargeOffer} charge
 * @property {ChargeMoveOffer} charge_move
 * @property {ReactionOffer} charge_reaction
 * @property {ShootOffer} shoot
 * @property {FortyAttackOffer} shoot_weapons
 * @property {FortyAttackOffer} fight
 * @property {CombatOffer} fight_combat
 * @property {RestrainOffer} restrain_pursuit
 * @property {DeployOffer} deploy_unit
 * @property {ReserveOffer} declare_reserve
 * @property {Offer} declare_strategic_reserves
 * @property {ReservesArrivalOffer} arrive_from_reserves
 * @property {AllocationOffer} set_allocation_order
 * @property {AmbushHostOffer} choose_ambush_host
 * @property {AmbushArrivalOffer} arrive_from_ambush
 * @property {EmergeOffer} emerge
 * @property {RoarOffer} roar_of_mork
 */

/** `roar_of_mork` (server/rules/wh40k10/command.py `_offer_roar`): each enemy unit on the table,
 * allowed or refused with the reason.
 * @typedef {Offer & {targets:{unit:string, available:boolean, reason:string|null}[]}} RoarOffer */

/** A roll an undo discards (server/rules/proposals.py `_rolls`).
 * @typedef {{seq:number, type:string, units:string[], unit_name:string|null, expression?:string, total?:number|null, faces:number[]}} UndoneRoll */
/**
 * What an undo takes back (server/rules/proposals.py `_undo_plan`): from which event, the
 * events in words and the dice they rolled.
 * @typedef {{from_seq:number, events:{seq:number, type:string, text?:string}[], rolls?:UndoneRoll[]}} UndoPlan
 */

/**
 * A core Stratagem as offered (server/rules/wh40k10/stratagems.py `_usable`).
 * @typedef {Object} StratagemEntry
 * @property {string} name
 * @property {number} cost
 * @property {string} [category]
 * @property {string} [when]
 * @property {string} [effect]
 * @property {string|null} [note]
 * @property {boolean} available
 * @property {string|null} reason
 * @property {{unit?:string, target?:string, roll?:string, weapons?:string[]}[]} targets
 */
/** @typedef {{name:string, cost:number, when:string, effect:string, reason:string}} ManualStratagem  a Stratagem the server does not automate */
/** @typedef {Offer & {cp:number, stratagems:StratagemEntry[], not_automated:ManualStratagem[]}} StratagemsOffer  `stratagems` */

/**
 * The order for each game-order key (`register_game_offer`).
 * @typedef {Object} GameOffers
 * @property {Offer & {phase?:string}} end_phase
 * @property {Offer} concede
 * @property {Offer & {about:string, question:string, options:{first:number, label:string}[]}} choose_first
 * @property {Offer & {casters:string[]}} cast_spell
 * @property {Offer & {kind:'undo', undo?:UndoPlan, starts?:number[]}} undo
 * @property {Offer & {kind:'free_move'}} free_move
 * @property {Offer & {proposal:string}} accept_proposal
 * @property {Offer & {proposal:string, withdraw?:boolean}} decline_proposal
 * @property {Offer & {undo?:UndoPlan, starts?:number[], army?:boolean}} take_back
 * @property {Offer & {current:string|null, objectives:{id:string, name:string, text:string}[]}} choose_secondary_objective
 * @property {StratagemsOffer} stratagems
 * @property {ChargeAnswerOffer} charge_answer
 * @property {Offer} call_waaagh
 */

// --- event payloads the client reads field by field (each event's `payload` is open: the
// reader narrows by the event's `type` and casts to one of these) ----------------------------

/** One step of a 40k attack sequence (server/rules/wh40k10/damage.py `Step.to_json`).
 * @typedef {{step:string, text:string, roll?:number, model?:string, needed?:number, data?:Record<string, unknown>}} AttackStep */
/**
 * `attacks_resolved` (wh40k10): the sequence step by step, the rolls its steps index.
 * @typedef {Object} AttacksResolvedPayload
 * @property {string} [text]
 * @property {string} [kind]        'shooting' or 'fight'
 * @property {Roll[]} [rolls]
 * @property {AttackStep[]} [steps]
 * @property {number} [wounds_lost]
 * @property {string[]} [destroyed]
 */
/**
 * `charge_succeeded` / `charge_failed` (server/rules/charge.py; a 40k charge carries its own
 * `text` and `targets`): the roll (`distance_roll` when a charge stopped on its way to release
 * Fanatics), what it needed, and a failed charge's reason and Failed Charge move.
 * @typedef {Object} ChargeOutcomePayload
 * @property {string} unit
 * @property {string} target
 * @property {string[]} [targets]
 * @property {number|null} [distance]
 * @property {Roll} [roll]
 * @property {Roll} [distance_roll]
 * @property {number} [bonus]
 * @property {number} [range]
 * @property {string|null} [rule]
 * @property {number} [wheel]
 * @property {string} [reason]
 * @property {boolean} [caught]
 * @property {{distance:number, allowed?:number, rule:string, stopped_by?:string|null}} [failed_move]
 * @property {string} [not_automated]  what the players must still do by hand
 * @property {Geometry} [swept]
 * @property {string} [text]
 */

/**
 * `fanatic_released` / `fanatic_moved` (whfb8, server/rules/whfb8/fanatics.py): the whirl.
 * @typedef {Object} WhirlPayload
 * @property {{id:string, owner:number}} [unit]   the Fanatic as a unit (`Unit.to_json`)
 * @property {number[]} start
 * @property {number[]} end
 * @property {number} [facing]
 * @property {number} distance
 * @property {string[]} [through]
 * @property {string|null} [removed]  why it was removed ('terrain', 'double'…)
 * @property {Roll} [roll]
 * @property {string} [text]
 */
/** `fanatic_hits` (whfb8). @typedef {{unit:string, target:string, hits:number, roll?:Roll, text?:string}} FanaticHitsPayload */
/**
 * `entombed_marker` (whfb8, server/rules/whfb8/entombed.py): where the marker was put, how
 * the scatter and artillery dice moved it, and what came of it.
 * @typedef {Object} EntombedMarkerPayload
 * @property {string} unit
 * @property {number[]} chosen
 * @property {Roll[]} [rolls]
 * @property {boolean} hit
 * @property {boolean} misfire
 * @property {number|null} direction
 * @property {number} scattered
 * @property {number[]} landed
 * @property {number[]|null} [marker]
 * @property {string[]} [moved_off]
 * @property {string} [outcome]      'marker', 'enemy' or 'mishap'
 * @property {string|null} [enemy]
 * @property {Placement} [suggested]
 * @property {number[][]} [outline]
 * @property {string} [text]
 */
/**
 * `ambush_rolled` (t9a, server/rules/t9a/ambush.py; whfb8 Ambushers): the roll to arrive.
 * @typedef {Object} AmbushRolledPayload
 * @property {string} unit
 * @property {number} [player_turn]
 * @property {number} [needed]       what the roll needs (3: arrives on 3+)
 * @property {boolean} [automatic]
 * @property {Roll} [roll]
 * @property {number} [maximised]
 * @property {boolean} [arrives]
 * @property {string[]} [rules]
 * @property {string} [text]
 */

/**
 * This viewer's orders (`state.orders`): per unit id, order key -> offer; the game orders.
 * @typedef {{seat?:number|null, units?:Record<string, Record<string, Offer>>, game?:Record<string, Offer>}} OrdersView
 */

// --- REST answers (server/api/routes/*.py response models) ------------------------------------

/** @typedef {{id:string, system:string, seat:number, token:string, dice_commitment:string, invite:string}} GameCreated  `POST /api/games` */
/** @typedef {{seat:1|2, token:string}} SeatClaimed  `POST /api/games/{id}/seats` */
/** @typedef {{id:string, system:string, seq:number, state:GameState, spectator_delay_s?:number}} GameView  `GET /api/games/{id}` */
/** @typedef {{seq:number, type:string, actor:number|string, payload:Record<string, unknown>}} WireEvent  one event of `GET /api/games/{id}/events` */
/** @typedef {{id:string, system:string, seq:number, last:number, over:boolean, event:WireEvent|null, state:GameState}} ReplayState  `GET /api/games/{id}/state?at=` */
/** @typedef {{id:string, system:string, last:number, over:boolean, steps:import('./replay.js').TimelineStep[]}} Timeline  `GET /api/games/{id}/timeline` */
/**
 * The dice proof (server/games/archive.py `dice_proof`): the commitment while the game runs;
 * after it the seed, and whether every roll verified (the failures with their reason).
 * @typedef {Object} DiceProof
 * @property {string} commitment
 * @property {boolean} revealed
 * @property {number} rolls
 * @property {string} [seed]
 * @property {boolean} [verified]
 * @property {{seq:number|null, roll:number|null, start:number|null, reason:string}[]} [failures]
 */
/** @typedef {{category:string, label:string, trials:number, successes:number, expected:number, spread:number, deviation:number, events:number}} LuckRow */
/** @typedef {{id:string, seq:number, players:Record<string, LuckRow[]>, charts:Record<string, string>, proof:DiceProof}} Luck  `GET /api/games/{id}/luck` */
/** @typedef {{id:string, name:string, battlefield:{width:number, depth:number}, turns:number, turn_name:string}} SystemInfo  one of `GET /api/systems` */

/** A dice expression as printed ("D6", "2D6", "D6+1") or a whole number (server/data/schema.py `DiceOrInt`).
 * @typedef {number|string} DiceOrInt */

/**
 * A special rule as a datasheet dump carries it (server/data/schema.py `SpecialRule`; `form` is
 * not dumped, `printed` is computed): `{name: "Hard Target", param: 1, printed: "Hard Target (1)"}`.
 * @typedef {{name:string, param:number|string|null, printed:string}} SpecialRuleJson
 */

/**
 * A special rule as a player writes it on a unit of your own: its printed form, or name and
 * parameter (server/data/schema.py `SpecialRule._from_printed` reads both).
 * @typedef {string|{name:string, param?:number|string|null}} SpecialRuleInput
 */

/** A rule outside the system's list, kept as text (server/data/schema.py `TextRule`).
 * @typedef {{name:string, text:string}} TextRule */

/** One change a roster's upgrade made (server/data/schema.py `ProfileChange`; `was` "" when added).
 * @typedef {{what:string, was:string, now:string, source:string}} ProfileChange */

/**
 * What a unit costs (server/data/schema.py `Points`): `unit + per_model × models`, or the
 * `tiers` entry (keys are model counts, as JSON strings) for the largest size reached.
 * @typedef {{unit:number, per_model:number, tiers:Record<string, number>}} Points
 */

/** @typedef {{advance_rate:number, march_rate:number, discipline:number}} T9AGlobal */
/** @typedef {{health_points:number, defensive_skill:number, resilience:number, armour:number, aegis:number|null}} T9ADefensive */
/** @typedef {{name:string, attacks:DiceOrInt, offensive_skill:number, strength:number, armour_penetration:number, agility:number, special_rules:SpecialRuleJson[]}} T9AModelPart */
/** @typedef {{name:string, range_in:number, shots:DiceOrInt, aim:number, strength:number, armour_penetration:number, special_rules:SpecialRuleJson[]}} T9AShootingWeapon */
/**
 * A t9a profile (server/data/schema.py `T9AProfile`).
 * @typedef {Object} T9AProfile
 * @property {'t9a'} system
 * @property {'Standard'|'Large'|'Gigantic'} height
 * @property {'Infantry'|'Beast'|'Cavalry'|'Construct'|'Swarm'} type
 * @property {T9AGlobal} global_characteristics
 * @property {T9ADefensive} defensive
 * @property {T9AModelPart[]} offensive
 * @property {T9AShootingWeapon[]} shooting
 */

/** One WFB profile line; null is a printed "-" (server/data/schema.py `WHFB8Stats`).
 * @typedef {{name:string, M:DiceOrInt|null, WS:number|null, BS:number|null, S:number|null, T:number, W:number, I:number|null, A:DiceOrInt|null, Ld:number|null}} WHFB8Stats */
/** @typedef {{name:string, range_in:number, strength:number, shots:DiceOrInt, special_rules:SpecialRuleJson[]}} WHFB8MissileWeapon */
/**
 * A whfb8 profile (server/data/schema.py `WHFB8Profile`).
 * @typedef {Object} WHFB8Profile
 * @property {'whfb8'} system
 * @property {'Infantry'|'Swarm'|'Cavalry'|'Monstrous Infantry'|'Monstrous Beast'|'Monstrous Cavalry'|'War Beast'|'Monster'|'Chariot'|'War Machine'|'Unique'} troop_type
 * @property {WHFB8Stats[]} models
 * @property {number|null} save
 * @property {number|null} ward_save
 * @property {WHFB8MissileWeapon[]} shooting
 */

/** One 40k model line; Sv 5 is 5+ (server/data/schema.py `Wh40kStats`).
 * @typedef {{name:string, M:number, T:number, Sv:number, W:number, Ld:number, OC:number}} Wh40kStats */
/**
 * A 40k weapon: ranged with `range_in` and `BS`, melee with `WS` (server/data/schema.py `Wh40kWeapon`).
 * @typedef {{name:string, type:'ranged'|'melee', range_in:number|null, A:DiceOrInt, BS:number|null, WS:number|null, S:number, AP:number, D:DiceOrInt, keywords:SpecialRuleJson[], carried_by:string|null}} Wh40kWeapon
 */
/**
 * A wh40k10 profile (server/data/schema.py `Wh40kProfile`).
 * @typedef {Object} Wh40kProfile
 * @property {'wh40k10'} system
 * @property {Wh40kStats[]} models
 * @property {number|null} invulnerable_save
 * @property {Wh40kWeapon[]} weapons
 */

/** A datasheet's profile, by its `system` (server/data/schema.py `Profile`).
 * @typedef {T9AProfile|WHFB8Profile|Wh40kProfile} Profile */

/**
 * A datasheet as the server serves it (`GET /api/systems/{id}/datasheets`, server/data/schema.py
 * `Datasheet.model_dump(mode="json")`); units of your own come the same way (`own-units/check`,
 * the state's `own_datasheets`). Every field is dumped; the optionals are the ones an older
 * server may lack.
 * @typedef {Object} Datasheet
 * @property {string} id
 * @property {string} name
 * @property {string} [system]
 * @property {string|null} [faction]
 * @property {Base} base
 * @property {{min:number, max:number, default:number}} models
 * @property {number|null} [default_files]
 * @property {Profile} profile
 * @property {SpecialRuleJson[]} [equipment]
 * @property {SpecialRuleJson[]} [special_rules]
 * @property {string[]} [keywords]
 * @property {boolean} [character]
 * @property {boolean|null} [attachable]
 * @property {string[]} [leads]
 * @property {string[]} [led_by]
 * @property {{datasheet:string, max:number}[]} [conceals]
 * @property {Record<string, string>} [rule_texts]  the unit's own wording of a rule, by rule name
 * @property {Points|null} [points]
 * @property {Record<string, string>} [sources]
 * @property {string|null} [notes]
 * @property {boolean} [own]
 * @property {TextRule[]} [other_rules]  units of your own: rules kept as text, not automated
 * @property {string|null} [based_on]   units of your own: the catalogue datasheet it changes
 * @property {ProfileChange[]} [changes]  what a roster's upgrades changed from `based_on`
 * @property {boolean} [can_join]   derived: may join another unit (t9a/whfb8 attachable, 40k Leader)
 * @property {boolean} [bodyguard]  derived, 40k: some Leader may lead it
 * @property {string} [height_class]
 */

/**
 * A rule of the system's list with its automation mark (`list_datasheets` `rules`:
 * server/data/schema.py `RuleInfo` and server/rules/automation.py `rule_marks`).
 * @typedef {Object} RuleInfo
 * @property {string} name
 * @property {string} summary       in our own words
 * @property {boolean} automated    false only when `automation` is 'not'
 * @property {'automated'|'partly'|'not'} automation
 * @property {string|null} notes    a partly automated rule: what is and is not automated
 * @property {'rule'|'attack_attribute'|'equipment'|'weapon_ability'} kind
 * @property {'none'|'int'|'dice'|'text'|'modifier'} param
 * @property {'plain'|'brackets'|'plus'|'suffix'|null} form
 * @property {string[]|null} choices
 * @property {string|null} source
 */

/**
 * A system's datasheets answer (`GET /api/systems/{id}/datasheets`, server/api/routes/systems.py
 * `list_datasheets`): the datasheets, the rules with their automation marks, the army rules
 * and which characters may join which unit.
 * @typedef {Object} Catalog
 * @property {string} system
 * @property {Datasheet[]} datasheets
 * @property {RuleInfo[]} [rules]
 * @property {ArmyRules} army
 * @property {Record<string, string[]>} joinable   host datasheet id -> the character ids that may join it
 */

/**
 * A system's army rules as the builder reads them (`list_datasheets` `army`).
 * @typedef {Object} ArmyRules
 * @property {boolean} [ranked]
 * @property {boolean} [standards]
 * @property {boolean} [leaders]
 * @property {string[]} [factions]
 * @property {string|null} [faction_rule]
 * @property {boolean} [allies]
 * @property {{name:string, points:number}[]} [game_sizes]
 * @property {string|null} [points_rule]
 * @property {string} [wound_name]  what an attack takes from a model, singular ("Wound", t9a "Health Point")
 */

/**
 * A unit of your own as the player writes it (server/data/own.py `FIELDS`: a datasheet without
 * id, system or sources, named in the army by `ref`). The server checks every field like a
 * datasheet's (`own_datasheet`); the builder's form sends an empty number as null for it to refuse.
 * @typedef {Object} OwnUnit
 * @property {string} ref
 * @property {string} [name]
 * @property {Base} [base]
 * @property {{min:number|null, max:number|null, default:number|null}} [models]
 * @property {number|null} [default_files]
 * @property {Record<string, unknown>} [profile]   the system's profile without `system`, as edited
 * @property {SpecialRuleInput[]} [equipment]
 * @property {SpecialRuleInput[]} [special_rules]
 * @property {TextRule[]} [other_rules]
 * @property {string[]} [keywords]
 * @property {boolean} [character]
 * @property {boolean|null} [attachable]
 * @property {{unit?:number|null, per_model?:number|null, tiers?:Record<string, number>}|null} [points]
 * @property {string|null} [notes]
 * @property {string[]} [leads]
 * @property {string|null} [based_on]
 * @property {ProfileChange[]} [changes]
 */

/**
 * An army entry as `submit_army` takes it and a roster import gives it back.
 * @typedef {Object} ArmyEntryJson
 * @property {string} datasheet
 * @property {number} models
 * @property {number} [files]
 * @property {string[]} [joined_characters]
 * @property {Record<string, number>} [concealed]
 * @property {boolean} [standard]
 * @property {boolean} [battle_standard]
 */

/**
 * Our army file (server/data/rosters.py `export_army`, docs/protocol.md "Roster import").
 * @typedef {{format:'warfield-army', version:number, system:string, units:ArmyEntryJson[], own_units?:OwnUnit[]}} ArmyFile
 */

/**
 * A problem submit_army would refuse (server/data/army.py `ArmyError`): `entry` is the index
 * of the offending army entry.
 * @typedef {{code:string, entry:number, message:string, rule:string|null, details:Record<string, unknown>}} ArmyProblem
 */

/**
 * A `report.mapped` item (server/data/rosters.py `_map_unit`, `_upgraded`, `_variant`; an army
 * file's entries carry no `points`): the roster's unit and the datasheet it became.
 * @typedef {Object} RosterMapped
 * @property {string} name
 * @property {number} models
 * @property {number} [points]          the roster's cost of the unit and its upgrades
 * @property {string} [faction]         the roster force's catalogue
 * @property {string} datasheet
 * @property {string} datasheet_name
 * @property {number} [catalog_points]  our cost for that many models
 * @property {Record<string, number>} [concealed]
 * @property {string} [ref]             the unit of your own `based_on` the datasheet, when upgrades changed it
 * @property {ProfileChange[]} [changes]
 * @property {string[]} [rules_as_text]
 * @property {string[]} [on_datasheet]  upgrades that are the datasheet's own kit
 * @property {{name:string, reason:string}[]} [not_applied]
 */

/**
 * A `report.created` item (server/data/rosters.py `_own_from_roster`): a roster unit the
 * catalogue lacks, made a unit of your own, with what was assumed.
 * @typedef {Object} RosterCreated
 * @property {string} name
 * @property {number} models
 * @property {number} points
 * @property {string} [faction]
 * @property {string} ref
 * @property {string[]} assumed
 * @property {string[]} rules_as_text
 * @property {boolean} [character]
 * @property {string[]} [leads]
 */

/**
 * A `report.skipped` item (server/data/rosters.py): what was left out and why (an army file's
 * entries: no `points`, the missing `datasheets`).
 * @typedef {{name:string, models:number, points?:number, faction?:string, reason:string, datasheets?:string[]}} RosterSkipped
 */

/**
 * A roster import's mapping report (server/data/rosters.py `ImportResult.to_json`).
 * @typedef {{mapped:RosterMapped[], created:RosterCreated[], skipped:RosterSkipped[], roster_points:number|null, problems:ArmyProblem[]}} RosterReport
 */

/**
 * A roster import's answer (`POST /api/systems/{id}/rosters/import`, server/data/rosters.py
 * `ImportResult.to_json`): the army entries, the units of your own with their checked
 * datasheets (by ref, when it brings any), the mapping report.
 * @typedef {{format:string, army:ArmyEntryJson[], own_units?:OwnUnit[], own_datasheets?:Record<string, Datasheet>, report:RosterReport}} RosterImport
 */

/** A model's base (server/data/schema.py `Base`): round ones a diameter, others width and depth.
 * @typedef {{shape:'rectangular'|'round'|'oval', width_mm?:number|null, depth_mm?:number|null, diameter_mm?:number|null}} Base */

/**
 * A terrain feature (its outline as GeoJSON, or as a ring of points from older servers).
 * @typedef {Object} Terrain
 * @property {string} [id]
 * @property {string} [kind]
 * @property {string} [height]
 * @property {string} [cover]
 * @property {string} [label]
 * @property {string} [name]
 * @property {Geometry} [geometry]
 * @property {Geometry} [polygon]
 * @property {Geometry} [footprint]
 * @property {number[][]} [points]
 */

/**
 * A proposal waiting for the other player's answer (undo, free move).
 * @typedef {Object} Proposal
 * @property {string} id
 * @property {string} kind
 * @property {number} by
 * @property {boolean} [open]
 * @property {string} [description]
 * @property {{from_seq:number, events?:{seq:number, type:string, text?:string}[], rolls?:UndoneRoll[]}} [undo]  events in words, the dice it discards
 * @property {{unit:string, outline?:Geometry}} [free_move]  the outline at the proposed position (drawn for everyone)
 */

/**
 * The charge waiting for its Charge Reaction.
 * @typedef {Object} PendingCharge
 * @property {string} unit
 * @property {string} target
 * @property {number} [distance]
 * @property {number} [reacting_player]
 * @property {string[]} [reactions]   the reactions allowed (server/rules/charge.py `_fold_charge_declared`)
 * @property {string} [answer]        wh40k10: what the charged player is asked first ("Fire Overwatch")
 */

/**
 * `charge_declared` (server/rules/charge.py `declare_charge`): the reactions allowed and why
 * each other one is refused.
 * @typedef {Object} ChargeDeclaredPayload
 * @property {string} unit
 * @property {string} target
 * @property {number} [distance]
 * @property {number} [reacting_player]
 * @property {string[]} [reactions]
 * @property {Record<string, {message?:string, rule?:string}>} [refused]
 * @property {string} [answer]   wh40k10: the charge waits for this answer (Fire Overwatch)
 * @property {string} [text]
 */

/**
 * An intent for the server (`act`, `preview`): its `type` and that action's fields.
 * @typedef {{type:string} & Record<string, unknown>} Action
 */

/** @typedef {{seq:number}} Ack  the server took an action; its events end at `seq` */

/**
 * A refusal as the connection rejects with it (net.js WireError).
 * @typedef {{code:string, message:string, details?:{rule?:string, obstacle?:string, obstacle_name?:string|null, distance?:number} & Record<string, unknown>}} WireError
 */

/**
 * The server's verdict on a would-be move (`preview`, or a refusal turned into one).
 * @typedef {Object} Verdict
 * @property {boolean} legal
 * @property {string|null} [rule]
 * @property {string|null} [obstacle]
 * @property {string|null} [obstacle_name] what a person reads for the obstacle (never its id)
 * @property {string} [message]
 * @property {boolean} [counts_as_march]
 * @property {string[]} [hazards]  what a legal move runs into, in words (whfb8 Fanatics)
 * @property {number} [used]
 * @property {number} [allowance]
 * @property {number} [distance]
 * @property {Geometry|null} [swept]
 * @property {ChargeExplain} [explain]  a charge's preview (server/rules/questions.py `_explained`)
 */

/**
 * What the server adds to the `preview` of a `declare_charge` (server/rules/charge.py
 * `charge_preview`): the distance, arc and sight (or declaration range), the path and the most
 * the roll can reach. Empty when a unit is not on the table.
 * @typedef {Object} ChargeExplain
 * @property {string} [unit]
 * @property {string} [target]
 * @property {number} [distance]
 * @property {number} [needed]
 * @property {boolean} [in_arc]
 * @property {boolean} [in_sight]
 * @property {string|null} [sight_blocked_by]
 * @property {number} [declare_within]
 * @property {boolean} [within_range]
 * @property {string} [roll]          the charge roll's expression ("2D6 + 1")
 * @property {number} [max_range]
 * @property {number} [wheel]
 * @property {number} [path_length]
 * @property {boolean} [blocked]
 * @property {string|null} [rule]
 * @property {string|null} [obstacle]
 * @property {string|null} [obstacle_name]
 * @property {Geometry|null} [swept]
 * @property {string|null} [failed_move]  how a failed charge moves, in words (ranked systems)
 * @property {string[]} [hazards]  what the path runs into and what it costs, in words (whfb8 Fanatics)
 * @property {boolean} [reachable]
 */

/**
 * The answer to `measure`.
 * @typedef {Object} MeasureResult
 * @property {number} [distance]
 * @property {number[][]} [points]
 * @property {boolean} [shared]
 */

/** @typedef {number[][] | {points?:number[][], coordinates?:number[][], geometry?:{coordinates?:number[][]}, clear?:boolean, visible?:boolean, blocked?:boolean}} SightLine */

/**
 * The answer to `line_of_sight`.
 * @typedef {Object} LosResult
 * @property {boolean} visible
 * @property {number} [fraction]
 * @property {string} [cover]
 * @property {SightLine[]} [lines]
 * @property {unknown[]} [blockers]
 * @property {unknown[]} [cover_from]
 */

/**
 * The answer to `ambush_options`: the 6 in zone around an edge point, the unit's outline, the
 * verdict on the requested placement and the valid placement nearest to it (view/ambush.js
 * ambushVerdict reads it).
 * @typedef {Object} AmbushAnswer
 * @property {Geometry|null} [zone]
 * @property {number[][]} [outline]
 * @property {{placement?:unknown, legal?:boolean, rule?:string|null, obstacle?:string|null, obstacle_name?:string|null, corners_within?:number, region?:Geometry|null}} [requested]
 * @property {unknown} [nearest]
 */

/**
 * The server's patch of this viewer's state for one batch (server/games/views.py): changed
 * top-level keys, units and tokens one by one, and the new tails of list keys.
 * @typedef {Object} StatePatch
 * @property {number} base     the seq the patch applies on top of
 * @property {number} seq
 * @property {Record<string, unknown>} [state]
 * @property {Record<string, Record<string, unknown>>} [items]
 * @property {Record<string, string[]>} [removed]
 * @property {string[]} [dropped]
 * @property {Record<string, {drop:number, push:unknown[]}>} [tails]
 */

/**
 * What the server allows one socket, from its settings, sent in every `welcome`: frames of at
 * most `max_frame_bytes`, `messages_per_s` messages a second in bursts of `burst`.
 * @typedef {Object} ClientLimits
 * @property {number} max_frame_bytes
 * @property {number} messages_per_s
 * @property {number} burst
 */

/**
 * A frame from the server; which fields it carries depends on its `type` (docs/protocol.md):
 * welcome (seat, seq, state, limits), events (events, patch), presence (players, spectators), overlay
 * (kind, points, seat, distance), error (code, message, details, ref) and the replies to
 * requests (ref and the answer's fields).
 * @typedef {Object} ServerFrame
 * @property {string} [type]
 * @property {string} [ref]
 * @property {1|2|null} [seat]
 * @property {number} [seq]
 * @property {GameState} [state]
 * @property {ClientLimits} [limits]
 * @property {unknown[]} [events]
 * @property {StatePatch} [patch]
 * @property {number[]} [players]
 * @property {number} [spectators]
 * @property {number} [spectator_delay_s]  welcome: how far behind a spectator sees the game
 * @property {string} [kind]
 * @property {unknown} [points]
 * @property {unknown} [distance]
 * @property {string} [code]
 * @property {string} [message]
 * @property {WireError['details']} [details]
 */

export {};
