import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { ApiError } from './api';
import { makeRouter } from './router';
import { Enroll, SignIn } from './screens/SignIn';
import { startSession, useSession } from './session';
import { Loading } from './ui';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A refused or missing resource does not get better by asking again.
      retry: (n, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && n < 2,
    },
  },
});

function App() {
  const session = useSession();
  const [router, setRouter] = useState<ReturnType<typeof makeRouter> | null>(null);
  if (session.status === 'starting') return <Loading />;
  if (session.status === 'signedOut') {
    if (location.pathname.startsWith('/app/enroll')) return <Enroll />;
    return <SignIn notice={session.notice} />;
  }
  if (!router) {
    // Created once signed in, from the address as it is then (the enrollment screen leaves /app/).
    if (location.pathname.startsWith('/app/enroll')) history.replaceState(null, '', '/app/');
    setRouter(makeRouter());
    return <Loading />;
  }
  return <RouterProvider router={router} />;
}

const el = document.getElementById('root');
if (!el) throw new Error('#root is missing');
createRoot(el).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
void startSession();
