import pg from 'pg';
const c = new pg.Client({ connectionString: process.argv[2] }); await c.connect();
for (const q of process.argv.slice(3)) { const r = await c.query(q); console.log(q.slice(0,80), JSON.stringify(r.rows).slice(0,1500)); }
await c.end();
