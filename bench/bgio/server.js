// A boardgame.io 0.50 server for the fan-out protocol: `node server.js PORT`.
// Default storage (in memory) and default transport (socket.io), as boardgame.io ships.
'use strict';

const { Server, Origins } = require('boardgame.io/server');
const { TokenTable } = require('./game');

const port = Number(process.argv[2] || process.env.PORT || 8000);
const server = Server({ games: [TokenTable], origins: [Origins.LOCALHOST] });
server.run({ port, callback: () => console.log(`bgio serving on ${port}`) });

process.on('SIGTERM', () => process.exit(0));
