// The data mover the agent's job runner and target prober use: the chunk store of
// server/agent/backup/, in one object (the runner takes any DataMover, so its tests can
// give it another real one).
import { runBackup } from './backup/backup';
import { collectGarbage } from './backup/gc';
import { runRestore, verifyBackup } from './backup/restore';
import { deleteBackup, listBackups, probeTarget, targetFigures } from './backup/target';
import type { DataMover } from './data-job-runner';

export const dataMover: DataMover = { runBackup, runRestore, verifyBackup, deleteBackup, collectGarbage, probeTarget, listBackups, targetFigures };
