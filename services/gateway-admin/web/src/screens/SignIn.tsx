import { useState, type FormEvent, type ReactNode } from 'react';
import { useI18n, type MessageKey } from '../i18n';
import { PasskeysUnsupported, signInWithPasskey, type SignedOutNotice } from '../session';

const NOTICES: Record<Exclude<SignedOutNotice, null>, MessageKey> = {
  ended: 'signIn.ended',
  loggedOut: 'signIn.loggedOut',
};

function failure(err: unknown, t: ReturnType<typeof useI18n>['t'], key: 'signIn.failed' | 'enroll.failed'): string {
  if (err instanceof PasskeysUnsupported) return t('signIn.unsupported');
  if (err instanceof Error && err.name === 'NotAllowedError') return t('signIn.cancelled');
  return t(key, { message: err instanceof Error ? err.message : String(err) });
}

/** A passkey ceremony run from a button: busy while it runs, its failure told under `failedKey`. */
function usePasskeyCeremony(failedKey: 'signIn.failed' | 'enroll.failed') {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(ceremony: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await ceremony();
    } catch (err) {
      setError(failure(err, t, failedKey));
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}

/** A signed-out page: its title, its content, and the failure of its last attempt if any. */
function AuthPage({ title, error, children }: { title: string; error: string | null; children: ReactNode }) {
  return (
    <main id="main" className="auth">
      <h1>{title}</h1>
      {children}
      {error && (
        <p role="alert" className="notice error">
          {error}
        </p>
      )}
    </main>
  );
}

export function SignIn({ notice }: { notice: SignedOutNotice }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const { busy, error, run } = usePasskeyCeremony('signIn.failed');
  function submit(e: FormEvent) {
    e.preventDefault();
    void run(() => signInWithPasskey(email.trim()));
  }
  return (
    <AuthPage title={t('signIn.title')} error={error}>
      {notice && (
        <p role="status" className={`notice ${notice === 'ended' ? 'warning' : ''}`} data-testid="signed-out-notice">
          {t(NOTICES[notice])}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="email">{t('signIn.email')}</label>
        <input
          id="email"
          type="email"
          autoComplete="username webauthn"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {t('signIn.submit')}
        </button>
      </form>
    </AuthPage>
  );
}

/** The enrollment link's screen: `/app/enroll#email=...&token=...` (the fragment never reaches a server). */
export function Enroll() {
  const { t } = useI18n();
  const [params] = useState(() => new URLSearchParams(location.hash.slice(1)));
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const { busy, error, run } = usePasskeyCeremony('enroll.failed');
  async function register() {
    await signInWithPasskey(email, token);
    // The token is spent: keep it out of the address bar and the history.
    history.replaceState(null, '', '/app/');
  }
  return (
    <AuthPage title={t('enroll.title')} error={error}>
      {email && token ? (
        <>
          <p>{t('enroll.intro', { email })}</p>
          <button type="button" onClick={() => void run(register)} disabled={busy}>
            {t('enroll.submit')}
          </button>
        </>
      ) : (
        <p role="alert" className="notice error">
          {t('enroll.missing')}
        </p>
      )}
    </AuthPage>
  );
}
