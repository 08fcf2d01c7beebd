// The shapes the server sends and the client sends back, for the type checker (JSDoc only: this
// module exports nothing at run time). The server's projection is the source of truth
// (server/games/service.py `project`, docs/protocol.md); fields the client does not read are
// left out, and a field may be absent on an older server, hence the many optionals.

/** @typedef {{x:number, y:number}} Pt  a point on the table, inches */
/** @typedef {[number, number]} Pos */

/**
 * A GeoJSON geometry as the server sends it (Polygon, MultiPolygon, LineString…).
 * @typedef {Object} Geometry
 * @property {string} type
 * @property {any} coordinates   nested number arrays; their depth depends on `type`
 * @property {Geometry[]} [geometries]  a GeometryCollection's members
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
 * @property {unknown[]} [characters]
 * @property {string[]} [markers]
 * @property {string[]} [rules]
 * @property {{type?:string, features?:Feature[]}} [footprint]
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
 */

/**
 * A terrain feature (its outline as GeoJSON, or as a ring of points from older servers).
 * @typedef {Object} Terrain
 * @property {string} [id]
 * @property {string} [kind]
 * @property {string} [height]
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
 * @property {{from_seq:number, events?:{seq:number, type:string, text?:string}[], rolls?:any[]}} [undo]  events in words, the dice it discards
 * @property {{unit:string, outline?:Geometry}} [free_move]  the outline at the proposed position (drawn for everyone)
 */

/**
 * The charge waiting for its Charge Reaction.
 * @typedef {Object} PendingCharge
 * @property {string} unit
 * @property {string} target
 * @property {number} [distance]
 * @property {number} [reacting_player]
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
 * @property {number} [used]
 * @property {number} [allowance]
 * @property {number} [distance]
 * @property {Geometry|null} [swept]
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
 * @property {string} [kind]
 * @property {unknown} [points]
 * @property {unknown} [distance]
 * @property {string} [code]
 * @property {string} [message]
 * @property {WireError['details']} [details]
 */

export {};
