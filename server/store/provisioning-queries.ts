// The provisioning controllers' queries over the `objects` table's indexed columns (and,
// where no column exists, the JSON). `db` is the store or one of its transactions.
import { annBetaStorageProvisioner, annStorageProvisioner } from '../domain/well-known/annotations';
import type { ObjectKey } from './consumer-queries';
import { sqlOf, type Queryable } from './sql-handle';

/** Unbound claims handed to one of `provisioners` (upstream's claims to provision). */
export function claimsToProvision(db: Queryable, provisioners: string[]): Promise<ObjectKey[]> {
  return sqlOf(db).$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects
      WHERE kind = 'PersistentVolumeClaim' AND provisioning IS TRUE AND volume_name IS NULL AND deletion_timestamp IS NULL
        AND (object->'metadata'->'annotations'->>$1 = ANY($3::text[]) OR object->'metadata'->'annotations'->>$2 = ANY($3::text[]))`,
    annStorageProvisioner,
    annBetaStorageProvisioner,
    provisioners,
  );
}

/** Claims of a class that wait for provisioning (a new or changed class may unblock them). */
export function claimsOfClass(db: Queryable, className: string, limit = 10_000): Promise<ObjectKey[]> {
  return sqlOf(db).$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE kind = 'PersistentVolumeClaim' AND provisioning IS TRUE
       AND volume_name IS NULL AND storage_class = $1 LIMIT $2`,
    className,
    limit,
  );
}
