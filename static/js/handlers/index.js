// The table's handlers, built for one table: the idle ones (enabled while no tool is picked,
// asked in this order) and the tools (one enabled at a time, by `table.setMode(name)`).
// Adding a tool is one class here, a button or key that calls `table.setMode(name)`, and its
// drawing (its `layers()`, drawn by view/render.js).

import { HandleDrag } from './handles.js';
import { ModelDrag } from './models.js';
import { UnitDrag } from './unit-drag.js';
import { TokenDrag } from './tokens.js';
import { Select } from './select.js';
import { PlaceTool } from './place.js';
import { MeasureTool } from './measure.js';
import { LosTool } from './los.js';
import { DeployTool } from './deploy.js';
import { ChargeTool } from './charge.js';
import { ShootTool } from './shoot.js';
import { FreeMoveTool } from './free-move.js';
import { AmbushTool } from './ambush.js';
import { EntombedTool } from './entombed.js';
import { SkirmishMoveTool } from './skirmish.js';
import { TerrainTool } from './terrain.js';
import { TerrainEditTool } from './terrain-edit.js';
import { FortyChargeTool } from './forty-charge.js';
import { ChargeMoveTool } from './charge-move.js';
import { ArriveTool } from './reserves.js';

/** @typedef {import('../table.js').Table} Table */

/** The idle handlers of `table`: a press goes to the first that takes it. @param {Table} table */
export function idleHandlers(table) {
  return {
    handles: new HandleDrag(table),
    models: new ModelDrag(table),
    units: new UnitDrag(table),
    tokens: new TokenDrag(table),
    select: new Select(table),
  };
}

/** The tools of `table`, by the name `setMode` takes. @param {Table} table */
export function toolHandlers(table) {
  return {
    place: new PlaceTool(table),
    measure: new MeasureTool(table),
    los: new LosTool(table),
    deploy: new DeployTool(table),
    charge: new ChargeTool(table),
    shoot: new ShootTool(table),
    free_move: new FreeMoveTool(table),
    ambush: new AmbushTool(table),
    entombed: new EntombedTool(table),
    skirmish: new SkirmishMoveTool(table),
    terrain: new TerrainTool(table),
    terrain_edit: new TerrainEditTool(table),
    forty_charge: new FortyChargeTool(table),
    charge_move: new ChargeMoveTool(table),
    arrive: new ArriveTool(table),
  };
}

/** @typedef {ReturnType<typeof idleHandlers>} IdleHandlers */
/** @typedef {ReturnType<typeof toolHandlers>} Tools */
/** @typedef {'idle'|keyof Tools} Mode */
