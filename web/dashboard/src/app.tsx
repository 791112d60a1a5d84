import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { api, rememberSession, whenSessionEnds } from './api.js';
import type { Session } from './api-types.js';
import { BusyButton } from './components/busy-button.js';
import { ErrorMessage, Loading } from './components/messages.js';
import { PageHeading } from './components/page-heading.js';
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

/** The app's name, after each page's own in the document's title (WCAG 2.4.2). */
const APP_TITLE = 'netintel dashboard';

const LINK_USED = 'This sign-in link has expired or was already used.';

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

/** A message above the page: a sign-out that failed, a sign-in link that failed while signed in. */
interface Notice {
  text: string;
  error: boolean;
}

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  const [notice, setNotice] = useState<Notice | null>(null);
  const [signingOut, setSigningOut] = useState(false);
  const page = route.page === 'sign-in' ? 'overview' : route.page;
  // A notice is about the page it was given on: another page starts without it.
  useEffect(() => setNotice(null), [page]);
  // So is the sign-in form's: a link that failed is not what the next address (#/nope) is about. Each
  // hashchange makes a new route, even to a page the form stands for as well.
  useEffect(
    () =>
      setSession((s) => (s.state === 'signed-out' && s.notice ? { state: 'signed-out', notice: null } : s)),
    [route],
  );

  const title =
    session.state === 'checking'
      ? null
      : session.state === 'confirm-link'
        ? 'Open this sign-in link?'
        : session.state === 'signed-out'
          ? 'Sign in'
          : page === 'invalid'
            ? 'Page not found'
            : (NAV.find(([p]) => p === page)?.[1] ?? null);
  // With the render, not after the next paint: the title is the page's as soon as the page is.
  useLayoutEffect(() => {
    document.title = title ? `${title} — ${APP_TITLE}` : APP_TITLE;
  }, [title]);

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
      .catch(async (err: unknown) => {
        history.replaceState(null, '', location.pathname);
        const e = asApiError(err);
        const used = e.code === 'invalid_sign_in_link' || e.status === 401;
        // A link that fails ends no session: this browser may still be signed in (it was when the
        // person chose to open the link, or another tab opened the same link a moment before).
        const current = await api.session().catch(() => null);
        if (current?.signedIn) {
          const { signedIn: _, ...still } = current;
          signedIn(still);
          location.replace('#/overview');
          setNotice({
            text: `${used ? LINK_USED : `The sign-in link was not opened: ${e.message}`} You are still signed in as ${still.email}.`,
            error: false,
          });
          return;
        }
        signedOut(used ? `${LINK_USED} Ask for a new one below.` : e.message);
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
        <SignInPage
          notice={
            session.notice ??
            (route.page === 'invalid' && route.signInLink
              ? `${UNREADABLE_LINK} Ask for a new one below.`
              : null)
          }
        />
      </main>
    );
  }

  // Signed out only once the server ended the session (a 2xx, or a 401: there was none). Any other
  // answer leaves it live there, and its cookie in this browser: saying "signed out" would be false.
  async function signOut() {
    setSigningOut(true);
    setNotice(null);
    try {
      await api.signOut();
    } catch (err) {
      const e = asApiError(err);
      if (e.status !== 401) {
        setSigningOut(false);
        setNotice({ text: `Could not sign out: ${e.message} Try again.`, error: true });
        return;
      }
    }
    setSigningOut(false);
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
          <BusyButton type="button" class="small" onClick={signOut} busy={signingOut}>
            Sign out
          </BusyButton>
        </div>
      </header>
      <main id="main" class="page">
        {notice?.error && <ErrorMessage error={notice.text} />}
        {notice && !notice.error && (
          <p class="message warning" role="alert">
            {notice.text}
          </p>
        )}
        {page === 'invalid' && <InvalidAddress signInLink={route.page === 'invalid' && route.signInLink} />}
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

const UNREADABLE_LINK =
  'This sign-in link cannot be read: part of it was cut short or changed on the way. Open it again from the e-mail.';

/** An address whose % escapes cannot be read (router.ts): said, rather than a blank page. */
function InvalidAddress({ signInLink }: { signInLink: boolean }) {
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p class="message error" role="alert">
        {signInLink
          ? UNREADABLE_LINK
          : 'This address is not a page of the dashboard: part of it cannot be read (a link cut short or changed on the way?).'}
      </p>
      <p>
        <a href={href('overview')}>Go to the Overview</a>
      </p>
    </>
  );
}
