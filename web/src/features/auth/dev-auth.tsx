import {
  createContext,
  type FormEvent,
  type ReactNode,
  useCallback,
  useContext,
  useMemo,
  useState,
} from 'react';
import type { DevTeamMember } from '../../../../shared/src/contracts/api';
import { ErrorState, Loading } from '../../components/states';
import { createApi, describeError } from '../../lib/api';
import { clearOfflineData } from '../../lib/offline-store';
import { navigate } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { type Auth, AuthContext } from './auth-context';

const STORAGE_KEY = 'switchboard.devSession';
const publicApi = createApi(async () => null);

interface StoredSession {
  token: string;
  expiresAt: string;
}

function readSession(): StoredSession | null {
  try {
    const s = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as StoredSession | null;
    if (s?.token && Date.parse(s.expiresAt) > Date.now() + 30_000) return s;
  } catch {}
  localStorage.removeItem(STORAGE_KEY);
  return null;
}

/**
 * Local sign-in without a Clerk account: the local API mints a Clerk-shaped session token for a demo team
 * member, signed with the stack's dev key. The token is verified like any Clerk token, so the allow-list,
 * admin role and expiry behave exactly as they will in production.
 */
export function DevAuthProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const [session, setSession] = useState(readSession);
  const signOut = useCallback(async () => {
    await clearOfflineData();
    localStorage.removeItem(STORAGE_KEY);
    setSession(null);
  }, []);
  const signedIn = useCallback((s: StoredSession) => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(s));
    setSession(s);
  }, []);
  const auth = useMemo<Auth>(
    () => ({
      kind: 'dev',
      ready: true,
      signedIn: Boolean(session),
      getToken: async () => readSession()?.token ?? null,
      signOut,
      SignIn: DevSignInScreen,
    }),
    [session, signOut],
  );
  return (
    <DevSignInContext.Provider value={useMemo(() => ({ enabled, signedIn }), [enabled, signedIn])}>
      <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>
    </DevSignInContext.Provider>
  );
}

const DevSignInContext = createContext<{ enabled: boolean; signedIn: (s: StoredSession) => void }>({
  enabled: false,
  signedIn: () => {},
});

function DevSignInScreen({ next }: { next: string }) {
  const { enabled, signedIn } = useContext(DevSignInContext);
  if (!enabled) return <SignInNotConfigured />;
  return (
    <DevSignIn
      onSignedIn={(s) => {
        signedIn(s);
        navigate(next, { replace: true });
      }}
    />
  );
}

function DevSignIn({ onSignedIn }: { onSignedIn: (s: StoredSession) => void }) {
  const team = useResource(() => publicApi.devTeam(), 'dev-team');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const signIn = async (address: string) => {
    setBusy(address);
    setError(null);
    try {
      onSignedIn(await publicApi.devSession(address));
    } catch (e) {
      setError(describeError(e));
      setBusy(null);
    }
  };
  return (
    <main className="signin">
      <div className="signin-card">
        <img src="/icons/icon-192.png" alt="" className="signin-logo" width={64} height={64} />
        <h1>Sign in to Switchboard</h1>
        <p className="muted">Local development sign-in. Pick a member of the demo team.</p>
        {team.loading && <Loading label="Loading the team…" />}
        {team.error !== undefined && !team.data && (
          <ErrorState message={describeError(team.error)} onRetry={() => void team.reload()} />
        )}
        {team.data && <TeamMembers members={team.data.members} busy={busy} onPick={(m) => void signIn(m)} />}
        <OtherEmail busy={busy !== null} onSubmit={(address) => void signIn(address)} />
        {error && (
          <p role="alert" className="error-text">
            {error}
          </p>
        )}
      </div>
    </main>
  );
}

/** The demo team as one big button each: signing in locally is one tap. */
function TeamMembers({
  members,
  busy,
  onPick,
}: {
  members: DevTeamMember[];
  busy: string | null;
  onPick: (email: string) => void;
}) {
  return (
    <ul className="signin-team">
      {members.map((m) => (
        <li key={m.email}>
          <button
            type="button"
            className="signin-member"
            disabled={busy !== null}
            onClick={() => onPick(m.email)}
          >
            <span className="avatar" aria-hidden="true">
              {m.name.charAt(0)}
            </span>
            <span className="signin-member-text">
              <strong>{m.name}</strong>
              <small>
                {m.role}
                {m.isAdmin ? ' · admin' : ''}
              </small>
            </span>
            {busy === m.email && <span className="spinner small" role="status" aria-label="Signing in" />}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Any other address (a dev token is minted for it; the API decides whether it belongs to the team). */
function OtherEmail({ busy, onSubmit }: { busy: boolean; onSubmit: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (email.trim()) onSubmit(email.trim());
  };
  return (
    <form onSubmit={submit} className="signin-other">
      <label htmlFor="signin-email">Or another email</label>
      <div className="row">
        <input
          id="signin-email"
          type="email"
          inputMode="email"
          autoComplete="email"
          placeholder="name@company.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" className="btn" disabled={busy || !email.trim()}>
          Sign in
        </button>
      </div>
    </form>
  );
}

function SignInNotConfigured() {
  return (
    <main className="signin">
      <div className="signin-card">
        <h1>Sign-in is not configured</h1>
        <p className="muted">
          Set CLERK_PUBLISHABLE_KEY and CLERK_JWT_KEY for this deployment, or run the local stack, which
          provides a development sign-in.
        </p>
      </div>
    </main>
  );
}
