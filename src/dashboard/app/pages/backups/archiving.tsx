/**
 * How archives are made and where they go: backups at once, the zstd level and workers, pausing
 * a running server's saving while it is archived, and (the operator's alone: the API refuses a
 * change from anyone else) the destination folder and whether database archives carry the
 * dashboard-login key. Saved through the configuration.
 */
import type { Access } from './access';
import { CheckField, NumberField, rangeProblem, SaveBar, useConfigDraft } from './config-edit';
import type { BackupConfig } from './model';

type Part = Pick<BackupConfig, 'maxConcurrent' | 'compressionLevel' | 'compressionWorkers' | 'quiesceServices' | 'quiesceWaitSeconds' | 'localDestination' | 'includeAuthKey'>;

const LABELS: Readonly<Record<string, string>> = {
  maxConcurrent: 'backups at once',
  compressionLevel: 'compression level',
  compressionWorkers: 'compression workers',
  quiesceServices: 'pausing saving',
  quiesceWaitSeconds: 'wait after flushing',
  localDestination: 'the archive folder',
  includeAuthKey: 'carrying the login key',
};

const pick = (c: BackupConfig): Part => ({
  maxConcurrent: c.maxConcurrent,
  compressionLevel: c.compressionLevel,
  compressionWorkers: c.compressionWorkers,
  quiesceServices: c.quiesceServices,
  quiesceWaitSeconds: c.quiesceWaitSeconds,
  localDestination: c.localDestination,
  includeAuthKey: c.includeAuthKey,
});

function problemsOf(p: Part): string[] {
  const problems = [
    rangeProblem('Backups at once', p.maxConcurrent, 1, 32),
    rangeProblem('Compression level', p.compressionLevel, 1, 22),
    rangeProblem('Compression workers', p.compressionWorkers, 0, 64),
    rangeProblem('Wait after flushing', p.quiesceWaitSeconds, 0, 60),
  ];
  if (p.localDestination.trim() === '') problems.push('The archive folder must be named.');
  return problems.filter((x): x is string => x !== null);
}

export function ArchivingSection({ config, access, destination }: { config: BackupConfig; access: Access; destination: string | undefined }) {
  // Below admin the operator's fields are sent as the controller has them now, whatever this draft holds.
  const apply = (c: BackupConfig, p: Part): BackupConfig => (access.admin ? { ...c, ...p } : { ...c, ...p, localDestination: c.localDestination, includeAuthKey: c.includeAuthKey });
  const part = useConfigDraft<Part>(config, pick, apply, LABELS);
  const d = part.draft;
  const operatorOnly = access.admin ? null : 'Only the operator changes this (an admin token or an admin session): the controller refuses a change from this account.';
  return (
    <section class="bk-card" aria-labelledby="bk-archiving-title">
      <h2 id="bk-archiving-title">Archiving</h2>
      <form
        class="bk-editor"
        aria-label="Edit archiving"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void part.save(problemsOf(d), 'Archiving is saved: the next backup follows it.');
        }}
      >
        <div class="bk-grid">
          <NumberField
            id="bk-a-concurrent"
            label="Backups at once"
            value={d.maxConcurrent}
            min={1}
            max={32}
            invalid={part.invalid === 'maxConcurrent'}
            onChange={(maxConcurrent) => part.set({ ...d, maxConcurrent })}
            hint="Archives made at the same time; the others wait their turn."
          />
          <NumberField
            id="bk-a-level"
            label="Compression level"
            value={d.compressionLevel}
            min={1}
            max={22}
            invalid={part.invalid === 'compressionLevel'}
            onChange={(compressionLevel) => part.set({ ...d, compressionLevel })}
            hint="zstd, 1 to 22: 3 is quick; 19 and above small but slow."
          />
          <NumberField
            id="bk-a-workers"
            label="Compression workers"
            value={d.compressionWorkers}
            min={0}
            max={64}
            invalid={part.invalid === 'compressionWorkers'}
            onChange={(compressionWorkers) => part.set({ ...d, compressionWorkers })}
            hint="zstd threads; 0 is half the cores, at least one."
          />
          <CheckField
            id="bk-a-quiesce"
            label="Pause saving while archiving"
            checked={d.quiesceServices}
            onChange={(quiesceServices) => part.set({ ...d, quiesceServices })}
            hint="A running server gets save-off and save-all flush before, save-on after, so its world is not half-written."
          />
          <NumberField
            id="bk-a-wait"
            label="Wait after flushing (seconds)"
            value={d.quiesceWaitSeconds}
            min={0}
            max={60}
            invalid={part.invalid === 'quiesceWaitSeconds'}
            onChange={(quiesceWaitSeconds) => part.set({ ...d, quiesceWaitSeconds })}
            hint="How long to let the server finish writing after save-all flush."
          />
        </div>
        <fieldset class="bk-operator">
          <legend>The operator’s settings</legend>
          <div class="bk-grid">
            <div class="bk-field">
              <label for="bk-a-destination">Archive folder</label>
              <input
                id="bk-a-destination"
                value={d.localDestination}
                onInput={(e) => part.set({ ...d, localDestination: (e.target as HTMLInputElement).value })}
                readOnly={!access.admin}
                autocomplete="off"
                spellcheck={false}
                maxLength={1024}
                aria-invalid={part.invalid === 'localDestination'}
                aria-describedby="bk-a-destination-hint"
              />
              <small id="bk-a-destination-hint">
                {operatorOnly ?? 'Relative to the controller’s folder unless absolute. Archives already made stay where they are.'}
                {destination && ` Now: ${destination}.`}
              </small>
            </div>
            <CheckField
              id="bk-a-authkey"
              label="Database archives carry the login key"
              checked={d.includeAuthKey}
              onChange={(includeAuthKey) => part.set({ ...d, includeAuthKey })}
              disabled={!access.admin}
              hint={operatorOnly ?? 'With it a restore keeps TOTP working, and whoever holds a database archive can read every TOTP seed. Off by default: keep the key elsewhere.'}
            />
          </div>
        </fieldset>
        <SaveBar part={part} access={access} label="archiving" />
      </form>
    </section>
  );
}
