import { useEffect, useState } from 'preact/hooks';
import { api, rememberSession, whenSessionEnds } from './api.js';
import type { Session } from './api-types.js';
import { Loading } from './components/messages.js';
import { DataPage } from './pages/data.js';
import { HostnamesPage } from './pages/hostnames.js';
import { JobsPage } from './pages/jobs.js';
import { KeysPage } from './pages/keys.js';
import { NoticesPage } from './pages/notices.js';
import { OverviewPage } from './pages/overview.js';
import { RulesPage } from './pages/rules.js';
import { SignInPage } from './pages/sign-in.js';
import { SwitchAccountPage } from './pages/switch-account.js';
import { WebhooksPage } from './pages/webhooks.js';
import { href, type Page, parseRoute, type Route } from './router.js';
import { asApiError } from './use-load.js';

const NAV: readonly [Page, string][] = [
  ['overview', 'Overview'],
  ['keys', 'API keys'],
  ['hostnames', 'Custom hostnames'],
  ['jobs', 'List jobs'],
  ['rules', 'Rules'],
  ['webhooks', 'Webhooks'],
  ['notices', 'Usage notices'],
  ['data', 'Data'],
];

type SessionState =
  | { state: 'checking' }
  | { state: 'signed-out'; notice: string | null }
  | { state: 'signed-in'; session: Session }
  /** A sign-in link opened while signed in: nothing changes until the person chooses. */
  | { state: 'confirm-link'; current: Session; token: string; busy: boolean };

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'checking' });

  const signedIn = (s: Session) => {
    rememberSession(s);
    setSession({ state: 'signed-in', session: s });
  };
  const signedOut = (notice: string | null) => {
    rememberSession(null);
    setSession({ state: 'signed-out', notice });
  };

  useEffect(() => {
    whenSessionEnds(() => signedOut('Your session has ended. Sign in again to go on.'));
    if (parseRoute(location.hash).page === 'sign-in') return; // the effect below opens it
    // Signed out is an answer here ({signedIn: false}), so a first visit logs no failed request.
    api
      .session()
      .then((current) => (current.signedIn ? signedIn(current) : signedOut(null)))
      .catch((err: unknown) => {
        // A 404 (no dashboard API on this server) reads as signed out, and so does a 401.
        const e = asApiError(err);
        signedOut(e.status === 401 || e.status === 404 ? null : e.message);
      });
  }, []);

  // The e-mailed link, on a fresh load or pasted into an open tab: exchange its token for a
  // session, then leave the token out of the URL.
  function openLink(token: string) {
    api
      .openLink(token)
      .then((s) => {
        signedIn(s);
        location.replace('#/overview');
      })
      .catch((err: unknown) => {
        history.replaceState(null, '', location.pathname);
        const e = asApiError(err);
        signedOut(
          e.code === 'invalid_sign_in_link' || e.status === 401
            ? 'This sign-in link has expired or was already used. Ask for a new one below.'
            : e.message,
        );
      });
  }
  const token = route.page === 'sign-in' ? route.token : null;
  useEffect(() => {
    if (!token) return;
    // Already signed in here: the person confirms before a link replaces the session. The link is
    // not used until then (it stays valid for its 15 minutes).
    api
      .session()
      .then((current) => {
        if (!current.signedIn) return openLink(token);
        const { signedIn: _, ...session } = current;
        setSession({ state: 'confirm-link', current: session, token, busy: false });
      })
      .catch(() => openLink(token));
  }, [token]);

  if (session.state === 'checking') {
    return (
      <main id="main" class="page">
        <Loading what="the dashboard" />
      </main>
    );
  }
  if (session.state === 'confirm-link') {
    const { current } = session;
    return (
      <main id="main" class="page">
        <SwitchAccountPage
          current={current}
          busy={session.busy}
          onOpen={() => {
            setSession({ ...session, busy: true });
            openLink(session.token);
          }}
          onStay={() => {
            signedIn(current);
            location.replace('#/overview');
          }}
        />
      </main>
    );
  }
  if (session.state === 'signed-out') {
    return (
      <main id="main" class="page">
        <SignInPage notice={session.notice} />
      </main>
    );
  }

  const page = route.page === 'sign-in' ? 'overview' : route.page;
  async function signOut() {
    try {
      await api.signOut();
    } catch {
      // Signed out here whatever the answer: the cookie ends with the session on the server.
    }
    signedOut('You are signed out.');
    history.replaceState(null, '', location.pathname);
  }

  return (
    <>
      <header class="top">
        <a class="brand" href={href('overview')}>
          netintel
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map(([p, label]) => (
              <li key={p}>
                <a href={href(p)} aria-current={p === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="email">{session.session.email}</span>
          <button type="button" class="small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" class="page">
        {page === 'overview' && <OverviewPage />}
        {page === 'keys' && <KeysPage />}
        {page === 'hostnames' && <HostnamesPage />}
        {page === 'jobs' && <JobsPage jobId={route.page === 'jobs' ? route.jobId : undefined} />}
        {page === 'rules' && <RulesPage />}
        {page === 'webhooks' && <WebhooksPage />}
        {page === 'notices' && <NoticesPage />}
        {page === 'data' && <DataPage />}
      </main>
    </>
  );
}
