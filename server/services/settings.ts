// Settings an administrator changes in the dashboard: today the "claim nearly full"
// threshold. Everyone signed in may read them (the home page says what "nearly full"
// means); only administrators change them. The environment's STOWAGE_NEARLY_FULL_PERCENT
// is the default until an administrator sets a value; clearing it returns to the default.
import { actorOfPrincipal } from '../domain/actor';
import type { Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { DEFAULT_NEARLY_FULL_PERCENT, parseNearlyFullPercent } from '../domain/nearly-full';
import { deleteSetting, readSetting, writeSetting } from '../store/settings';
import type { ObjectStore } from '../store/object-store';

const NEARLY_FULL_KEY = 'nearlyFullPercent';
/** How long a controller may act on a threshold it read (ms). */
const CACHE_MS = 2000;

export interface Settings {
  /** The threshold in force, 1..100. */
  nearlyFullPercent: number;
  /** Where it comes from: an administrator's setting, or the default (environment or built in). */
  nearlyFullSource: 'setting' | 'default';
  /** The default the setting overrides. */
  nearlyFullDefault: number;
  updatedAt?: string;
  updatedBy?: string;
}

export class SettingsService {
  private cached?: { at: number; value: number };

  constructor(
    private readonly store: ObjectStore,
    /** STOWAGE_NEARLY_FULL_PERCENT, checked when the configuration was read. */
    private readonly nearlyFullDefault = DEFAULT_NEARLY_FULL_PERCENT,
  ) {}

  async get(_p: Principal): Promise<Settings> {
    return this.read();
  }

  /** Sets the threshold (null: back to the default). Administrators only. */
  async update(p: Principal, input: { nearlyFullPercent: number | null }): Promise<Settings> {
    if (p.role !== 'admin') throw new StowageError('Forbidden', `User "${p.name}" cannot change settings: they are for administrators`);
    if (input.nearlyFullPercent === null) {
      await deleteSetting(this.store, NEARLY_FULL_KEY);
    } else {
      const v = parseNearlyFullPercent(input.nearlyFullPercent);
      if (v === undefined) {
        throw new StowageError('Invalid', 'nearlyFullPercent must be a whole number from 1 to 100', {
          causes: [{ field: 'nearlyFullPercent', message: 'must be a whole number from 1 to 100', reason: 'FieldValueInvalid' }],
        });
      }
      await writeSetting(this.store, NEARLY_FULL_KEY, v, actorOfPrincipal(p));
    }
    this.cached = undefined;
    return this.read();
  }

  /** The threshold in force, for the controller and the home page (read at most every 2 s). */
  async nearlyFullPercent(now = Date.now()): Promise<number> {
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.value;
    const value = (await this.read()).nearlyFullPercent;
    this.cached = { at: now, value };
    return value;
  }

  private async read(): Promise<Settings> {
    const row = await readSetting(this.store, NEARLY_FULL_KEY);
    const set = row ? parseNearlyFullPercent(row.value) : undefined;
    return set !== undefined
      ? { nearlyFullPercent: set, nearlyFullSource: 'setting', nearlyFullDefault: this.nearlyFullDefault, updatedAt: row!.updatedAt, updatedBy: row!.updatedBy }
      : { nearlyFullPercent: this.nearlyFullDefault, nearlyFullSource: 'default', nearlyFullDefault: this.nearlyFullDefault };
  }
}
