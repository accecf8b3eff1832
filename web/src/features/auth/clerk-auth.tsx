import { ClerkProvider, SignIn, useAuth as useClerkAuth } from '@clerk/react';
import { ClerkOfflineError } from '@clerk/react/errors';
import { type ReactNode, useMemo } from 'react';
import { clearOfflineData } from '../../lib/offline-store';
import { type Auth, AuthContext } from './auth-context';

/**
 * Clerk-backed sign-in, loaded only when the deployment has a publishable key (a separate chunk, so the
 * local stack never downloads it). Clerk keeps the session; the API gets its short-lived token per call.
 */
export default function ClerkAuthProvider({
  publishableKey,
  children,
}: {
  publishableKey: string;
  children: ReactNode;
}) {
  return (
    <ClerkProvider publishableKey={publishableKey} afterSignOutUrl="/sign-in">
      <ClerkBridge>{children}</ClerkBridge>
    </ClerkProvider>
  );
}

function ClerkSignIn({ next }: { next: string }) {
  return (
    <main className="signin">
      <SignIn routing="hash" forceRedirectUrl={next} />
    </main>
  );
}

/** Shown as is by describeError: the session could not be refreshed because there is no connection. */
export class OfflineError extends Error {
  constructor() {
    super('You are offline, so your session could not be refreshed. Check the connection and try again.');
    this.name = 'OfflineError';
  }
}

function ClerkBridge({ children }: { children: ReactNode }) {
  const { isLoaded, isSignedIn, getToken, signOut } = useClerkAuth();
  const auth = useMemo<Auth>(
    () => ({
      kind: 'clerk',
      ready: isLoaded,
      signedIn: Boolean(isSignedIn),
      getToken: async () => {
        try {
          return await getToken();
        } catch (e) {
          // @clerk/react 6 throws instead of answering null when the browser is offline: say so plainly
          // rather than sending an unauthenticated request that would come back as "sign in required".
          if (ClerkOfflineError.is(e)) throw new OfflineError();
          throw e;
        }
      },
      signOut: async () => {
        await clearOfflineData();
        await signOut();
      },
      SignIn: ClerkSignIn,
    }),
    [isLoaded, isSignedIn, getToken, signOut],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}
