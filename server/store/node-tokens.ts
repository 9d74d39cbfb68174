// Node tokens (table node_tokens): a node agent's credential, stored as the sha256 of the
// secret, bound to one node name.
import type { SqlClient } from './pg';
import { sqlOf, type Queryable } from './sql-handle';

export class NodeTokenStore {
  private readonly sql: SqlClient;

  /** `on`: the store (or one of its transactions). */
  constructor(on: Queryable) {
    this.sql = sqlOf(on);
  }

  async create(nodeName: string, tokenHash: string, name = ''): Promise<void> {
    await this.sql.$executeRawUnsafe(
      'INSERT INTO node_tokens (id, node_name, name, token_hash) VALUES (gen_random_uuid(), $1, $2, $3)',
      nodeName,
      name,
      tokenHash,
    );
  }

  /** The node a token hash belongs to (and notes its use), or undefined. */
  async nodeOf(tokenHash: string): Promise<string | undefined> {
    const rows = await this.sql.$queryRawUnsafe<{ node_name: string }[]>(
      'SELECT node_name FROM node_tokens WHERE token_hash = $1',
      tokenHash,
    );
    return rows[0]?.node_name;
  }

  async revokeNode(nodeName: string): Promise<number> {
    return this.sql.$executeRawUnsafe('DELETE FROM node_tokens WHERE node_name = $1', nodeName);
  }
}
