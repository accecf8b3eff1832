import { lazy, type ReactNode, Suspense, useEffect, useMemo } from 'react';
import type { PublicConfig } from '../../shared/src/contracts/api';
import { EmptyState, ErrorState, Loading } from './components/states';
import { AdminScreen } from './features/admin/admin-screen';
import { DeleteConversationScreen } from './features/admin/delete-conversation';
import { PolicyEditorScreen } from './features/admin/policy-editor';
import { TimelineScreen } from './features/audit-timeline/timeline-screen';
import { ApiContext, MeContext, safeNext, useApi, useAuth } from './features/auth/auth-context';
import { DevAuthProvider } from './features/auth/dev-auth';
import { InboxScreens } from './features/layout/inbox-screens';
import { NewCardToast } from './features/live/new-card-toast';
import { MemoryScreen } from './features/memory/memory-screen';
import { PushConfigContext } from './features/push/push-config';
import { SettingsScreen } from './features/settings/settings-screen';
import { ApiError, createApi, describeError } from './lib/api';
import { LiveProvider } from './lib/live';
import { clearOfflineData, loadWithOfflineCopy, readOffline, saveOffline } from './lib/offline-store';
import { Link, Redirect, signInPath, useLocation } from './lib/router';
import { useResource } from './lib/use-resource';

const ClerkAuthProvider = lazy(() => import('./features/auth/clerk-auth'));
const publicApi = createApi(async () => null);

/** Boot: the public config decides which sign-in to use; then auth, then the signed-in app. */
export function App() {
  const config = useResource(() => loadWithOfflineCopy('config', () => publicApi.config()), 'config');
  if (config.loading && !config.data) return <Splash />;
  if (!config.data) {
    return (
      <main className="splash">
        <ErrorState message={describeError(config.error)} onRetry={() => void config.reload()} />
      </main>
    );
  }
  const c = config.data;
  const routes = <Routes config={c} />;
  if (c.clerkPublishableKey) {
    return (
      <Suspense fallback={<Splash />}>
        <ClerkAuthProvider publishableKey={c.clerkPublishableKey}>{routes}</ClerkAuthProvider>
      </Suspense>
    );
  }
  return <DevAuthProvider enabled={c.devSignIn}>{routes}</DevAuthProvider>;
}

function Splash() {
  return (
    <main className="splash">
      <Loading label="Starting Switchboard…" />
    </main>
  );
}

function Routes({ config }: { config: PublicConfig }) {
  const auth = useAuth();
  const { path, query, href } = useLocation();
  const api = useMemo(() => createApi(auth.getToken), [auth.getToken]);
  const { vapidPublicKey, push } = config;
  const pushConfig = useMemo(() => ({ vapidPublicKey, push }), [vapidPublicKey, push]);
  if (!auth.ready) return <Splash />;
  if (path === '/sign-in') {
    const next = safeNext(query.get('next'));
    return auth.signedIn ? <Redirect to={next} /> : <auth.SignIn next={next} />;
  }
  // Signing in first, then back to exactly where the link pointed (e.g. /chat?id=… from a notification).
  if (!auth.signedIn) return <Redirect to={signInPath(href)} />;
  return (
    <ApiContext.Provider value={api}>
      <SessionGate>
        <PushConfigContext.Provider value={pushConfig}>
          <LiveProvider url={config.liveUrl} getToken={auth.getToken}>
            <Screen path={path} id={query.get('id') ?? undefined} config={config} />
            <NewCardToast />
          </LiveProvider>
        </PushConfigContext.Provider>
      </SessionGate>
    </ApiContext.Provider>
  );
}

function Screen({ path, id, config }: { path: string; id?: string; config: PublicConfig }) {
  switch (path) {
    case '/':
    case '/chat':
      return <InboxScreens path={path} id={id} />;
    case '/admin':
      return <AdminScreen />;
    case '/admin/policy':
      return <PolicyEditorScreen />;
    case '/admin/delete':
      return <DeleteConversationScreen id={id} />;
    case '/timeline':
      return <TimelineScreen id={id} />;
    case '/memory':
      return <MemoryScreen />;
    case '/settings':
      return <SettingsScreen config={config} />;
    default:
      return (
        <main className="splash">
          <EmptyState title="Nothing here">
            <Link href="/">Go to the inbox</Link>
          </EmptyState>
        </main>
      );
  }
}

/**
 * Asks the API who the session belongs to before showing anything: an expired or rejected session goes back
 * to sign-in (and returns here after), a session from outside the team gets a clear refusal.
 */
function SessionGate({ children }: { children: ReactNode }) {
  const api = useApi();
  const auth = useAuth();
  const me = useResource(async () => {
    const answer = await loadWithOfflineCopy('me', () => api.me());
    // Another person signed in on this device: nothing the previous one saw stays on it.
    const owner = await readOffline<string>('owner');
    if (owner && owner.data !== answer.user.id) {
      await clearOfflineData();
      await saveOffline('me', answer);
    }
    await saveOffline('owner', answer.user.id);
    return answer;
  }, 'me');
  const err = me.error;
  const expired = !me.data && err instanceof ApiError && err.status === 401;
  useEffect(() => {
    // Dropping the stale session re-renders the routes signed out, which redirect to sign-in and back here.
    if (expired) void auth.signOut();
  }, [expired, auth]);
  if ((me.loading && !me.data) || expired) return <Splash />;
  if (!me.data) {
    if (err instanceof ApiError && err.status === 403) {
      return (
        <main className="splash">
          <div className="state state-error" role="alert">
            <p className="state-title">This account cannot use Switchboard</p>
            <p>{err.message}</p>
            <button type="button" className="btn" onClick={() => void auth.signOut()}>
              Sign in with another account
            </button>
          </div>
        </main>
      );
    }
    return (
      <main className="splash">
        <ErrorState message={describeError(err)} onRetry={() => void me.reload()} />
      </main>
    );
  }
  return <MeContext.Provider value={me.data.user}>{children}</MeContext.Provider>;
}
