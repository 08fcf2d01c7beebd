// The end-of-game panel: both players' Victory Points, the objectives and the result (win,
// draw, loss), from the public `game_result` the server projects to players and spectators
// alike (server/rules/endgame.py). `resultSummary` is the words; `resultPanel` the element.
import { h } from './dom.js';

/** @typedef {{seat: number, points: number, text: string}} ScoreLine */
/** @typedef {{name: string, winner: number|null, text: string, counts: Object<string, number>}} ObjectiveResult */
/**
 * @typedef {Object} GameResult
 * @property {string} reason
 * @property {number|null} winner
 * @property {Object<string, number>} scores
 * @property {Object<string, string>} results
 * @property {string|null} margin
 * @property {ScoreLine[]} lines
 * @property {ObjectiveResult[]} objectives
 * @property {Object<string, number>|null} battle_points
 * @property {number|null} conceded_by
 * @property {string|null} [rule]  how the system decides the result, in words (whfb8)
 * @property {string} text
 */

const RESULT_WORDS = /** @type {Object<string, string>} */ ({ win: 'Win', draw: 'Draw', loss: 'Loss' });

/**
 * The panel's words: a heading for `seat` (null: a spectator), one row per player, the
 * objectives and where the points came from.
 * @param {GameResult} result @param {number|null} seat
 */
export function resultSummary(result, seat) {
  const margin = result.margin ? ` (${result.margin})` : '';
  let heading;
  if (result.winner === null || result.winner === undefined) heading = 'A draw';
  else if (seat === result.winner) heading = `You win${margin}`;
  else if (seat === 1 || seat === 2) heading = `You lose: Player ${result.winner} wins${margin}`;
  else heading = `Player ${result.winner} wins${margin}`;
  const rows = [1, 2].map((s) => ({
    seat: s,
    label: s === seat ? `Player ${s} (you)` : `Player ${s}`,
    points: result.scores?.[String(s)] ?? 0,
    battlePoints: result.battle_points ? result.battle_points[String(s)] : null,
    result: RESULT_WORDS[result.results?.[String(s)]] || '',
  }));
  const objectives = (result.objectives || []).map((o) => o.text);
  const lines = (result.lines || []).map((l) => `Player ${l.seat} +${l.points}: ${l.text}`);
  const note = result.conceded_by ? `Player ${result.conceded_by} conceded` : '';
  const rule = typeof result.rule === 'string' ? result.rule : '';
  return { heading, rows, objectives, lines, note, rule };
}

/** @param {GameResult|null|undefined} result @param {number|null} seat @returns {HTMLElement|null} */
export function resultPanel(result, seat) {
  if (!result) return null;
  const s = resultSummary(result, seat);
  const bp = s.rows.some((r) => r.battlePoints !== null);
  return h('section', { class: 'game-result', 'aria-label': 'Result' },
    h('h3', null, s.heading),
    s.rule ? h('p', { class: 'result-rule' }, s.rule) : null,
    h('table', null,
      h('tr', null, h('th', null, ''), h('th', null, 'Victory Points'), bp ? h('th', null, 'Battle Points') : null, h('th', null, 'Result')),
      s.rows.map((r) => h('tr', { class: `owner-${r.seat}` },
        h('td', null, r.label), h('td', null, String(r.points)), bp ? h('td', null, String(r.battlePoints)) : null, h('td', null, r.result)))),
    s.note ? h('p', null, s.note) : null,
    s.objectives.length ? h('ul', { class: 'objectives' }, s.objectives.map((t) => h('li', null, t))) : null,
    s.lines.length ? h('details', null, h('summary', null, 'Victory Points scored'), h('ul', null, s.lines.map((t) => h('li', null, t)))) : null);
}
