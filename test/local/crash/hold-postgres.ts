// A process playing `stowage start`: starts the embedded Postgres of the data dir given as
// its argument, prints one line with its address, and runs until it is killed.
import { startEmbeddedPostgres } from '../../../server/store/database';

const server = await startEmbeddedPostgres(process.argv[2]);
process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);
setInterval(() => {}, 1 << 30);
