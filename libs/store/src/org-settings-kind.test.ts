import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrgSettingsDoc, updateOrgSettings } from './org-settings';
import type { DocumentStore } from './port';
import { patchOrgSettings, readOrgSettings } from './org-settings-kind';

const stored = vi.hoisted(() => ({ doc: null as unknown, updates: [] as unknown[][] }));

vi.mock('./org-settings', () => ({
  findOrgSettings: vi.fn(async () => stored.doc),
  updateOrgSettings: vi.fn(async (...args: Parameters<typeof updateOrgSettings<Settings>>) => {
    const [, collection, key, now, defaults, mutate] = args;
    stored.updates.push([collection, key, now]);
    const current = stored.doc as OrgSettingsDoc<Settings> | null;
    const settings = mutate(current ? current.settings : defaults());
    return { id: 's1', version: 1, ...key, settings, createdAt: now, updatedAt: now };
  }),
}));

interface Settings {
  level: number;
  legacyOff?: boolean;
}

const key = { organizationId: 'org_1', mode: 'live' as const };
const store: DocumentStore = {} as DocumentStore;
const kind = {
  collection: 'level_settings',
  name: 'level',
  defaults: (): Settings => ({ level: 1 }),
  view: (doc: OrgSettingsDoc<Settings> | null) => ({
    level: doc?.settings.level ?? 1,
    updatedAt: doc?.updatedAt ?? null,
  }),
};

function deps() {
  const lines: Array<[object, string | undefined]> = [];
  return {
    lines,
    store,
    clock: { now: () => new Date('2026-03-01T10:00:00.000Z') },
    logger: { info: (obj: object, msg?: string) => lines.push([obj, msg]) },
  };
}

describe('organization settings of a kind', () => {
  beforeEach(() => {
    stored.doc = null;
    stored.updates = [];
  });

  it('reads the view of the stored settings, or of none before the first save', async () => {
    expect(await readOrgSettings(store, kind, key)).toEqual({ level: 1, updatedAt: null });
    stored.doc = { id: 's1', version: 3, ...key, settings: { level: 4 }, createdAt: 'c', updatedAt: 'u' };
    expect(await readOrgSettings(store, kind, key)).toEqual({ level: 4, updatedAt: 'u' });
  });

  it('saves the patch at the clock time, logs the saved settings and answers their view', async () => {
    const d = deps();
    const answer = await patchOrgSettings(d, kind, key, { level: 7 }, (cur) => ({ ...cur, level: cur.level + 6 }));
    expect(answer).toEqual({ level: 7, updatedAt: '2026-03-01T10:00:00.000Z' });
    expect(stored.updates).toEqual([['level_settings', key, '2026-03-01T10:00:00.000Z']]);
    expect(d.lines).toEqual([
      [{ organizationId: 'org_1', mode: 'live', settings: { level: 7 } }, 'level settings updated'],
    ]);
  });

  it('logs what the kind shows of the saved settings', async () => {
    const d = deps();
    await patchOrgSettings(d, { ...kind, logged: (s: Settings) => ({ level: s.level }) }, key, { level: 2 }, () => ({
      level: 2,
      legacyOff: true,
    }));
    expect(d.lines[0]?.[0]).toEqual({ organizationId: 'org_1', mode: 'live', settings: { level: 2 } });
  });

  it('writes and logs nothing for an empty patch and answers a read', async () => {
    stored.doc = { id: 's1', version: 3, ...key, settings: { level: 4 }, createdAt: 'c', updatedAt: 'u' };
    const d = deps();
    const mutate = vi.fn((cur: Settings) => cur);
    expect(await patchOrgSettings(d, kind, key, {}, mutate)).toEqual({ level: 4, updatedAt: 'u' });
    expect(stored.updates).toEqual([]);
    expect(mutate).not.toHaveBeenCalled();
    expect(d.lines).toEqual([]);
  });

  it('writes and logs nothing when the patch is refused', async () => {
    const d = deps();
    await expect(
      patchOrgSettings(d, kind, key, { level: -1 }, () => {
        throw new Error('level must be positive');
      }),
    ).rejects.toThrow('level must be positive');
    expect(d.lines).toEqual([]);
  });
});
