// The protocol's game for boardgame.io: a 72 x 48 in table on which player "0" places tokens
// and moves them (../../../shared/bench/PROTOCOL.md). A move is refused (INVALID_MOVE, nothing
// changes) if the token is unknown or the target is off the table, as Warfield's move_token is.
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const WIDTH = 72;
const DEPTH = 48;

function onTable(x, y) {
  return Number.isFinite(x) && Number.isFinite(y) && x >= 0 && x <= WIDTH && y >= 0 && y <= DEPTH;
}

const TokenTable = {
  name: 'tokens',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ width: WIDTH, depth: DEPTH, next: 1, tokens: {} }),
  moves: {
    placeToken: ({ G, playerID }, x, y, label) => {
      if (!onTable(x, y)) return INVALID_MOVE;
      const id = `k${G.next}`;
      G.next += 1;
      G.tokens[id] = { id, owner: playerID, x, y, label: String(label || '') };
      return undefined;
    },
    moveToken: ({ G, playerID }, id, x, y) => {
      const token = G.tokens[id];
      if (token === undefined || token.owner !== playerID || !onTable(x, y)) return INVALID_MOVE;
      token.x = x;
      token.y = y;
      return undefined;
    },
  },
  // Player "0" keeps the turn: the protocol's player moves again and again.
};

module.exports = { TokenTable };
