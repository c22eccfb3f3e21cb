import { useState, type FormEvent } from 'react';
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

export function SignIn({ notice }: { notice: SignedOutNotice }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signInWithPasskey(email.trim());
    } catch (err) {
      setError(failure(err, t, 'signIn.failed'));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" className="auth">
      <h1>{t('signIn.title')}</h1>
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
      {error && (
        <p role="alert" className="notice error">
          {error}
        </p>
      )}
    </main>
  );
}

/** The enrollment link's screen: `/app/enroll#email=...&token=...` (the fragment never reaches a server). */
export function Enroll() {
  const { t } = useI18n();
  const [params] = useState(() => new URLSearchParams(location.hash.slice(1)));
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function register() {
    setBusy(true);
    setError(null);
    try {
      await signInWithPasskey(email, token);
      // The token is spent: keep it out of the address bar and the history.
      history.replaceState(null, '', '/app/');
    } catch (err) {
      setError(failure(err, t, 'enroll.failed'));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" className="auth">
      <h1>{t('enroll.title')}</h1>
      {email && token ? (
        <>
          <p>{t('enroll.intro', { email })}</p>
          <button type="button" onClick={() => void register()} disabled={busy}>
            {t('enroll.submit')}
          </button>
        </>
      ) : (
        <p role="alert" className="notice error">
          {t('enroll.missing')}
        </p>
      )}
      {error && (
        <p role="alert" className="notice error">
          {error}
        </p>
      )}
    </main>
  );
}
