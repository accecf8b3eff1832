import { ClerkProvider, SignIn, useAuth as useClerkAuth } from '@clerk/clerk-react';
import { type ReactNode, useMemo } from 'react';
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

function ClerkBridge({ children }: { children: ReactNode }) {
  const { isLoaded, isSignedIn, getToken, signOut } = useClerkAuth();
  const auth = useMemo<Auth>(
    () => ({
      kind: 'clerk',
      ready: isLoaded,
      signedIn: Boolean(isSignedIn),
      getToken: () => getToken(),
      signOut: () => signOut(),
      SignIn: ClerkSignIn,
    }),
    [isLoaded, isSignedIn, getToken, signOut],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}
