import { api } from '../api.js';
import type { Overview } from '../api-types.js';
import { CopyButton, CopyValue } from '../components/copy-button.js';
import { ErrorMessage, Loading } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { UsageChart } from '../components/usage-chart.js';
import { count, dateTime, percentOf } from '../format.js';
import { KIND_LABELS, KINDS } from '../kinds.js';
import { useLoad } from '../use-load.js';

export function OverviewPage() {
  const { data, error, loading } = useLoad(api.overview);
  return (
    <>
      <PageHeading>Overview</PageHeading>
      {loading && !data && <Loading what="your usage" />}
      <ErrorMessage error={error} />
      {data && <OverviewBody overview={data} />}
    </>
  );
}

function OverviewBody({ overview }: { overview: Overview }) {
  const { account, usage } = overview;
  return (
    <>
      <div class="overview-top">
        <section aria-labelledby="plan-title">
          <h2 id="plan-title">Plan</h2>
          <dl class="facts">
            <dt>Plan</dt>
            <dd>{account.plan}</dd>
            <dt>Per-minute limit</dt>
            <dd>{count(account.perMinute)} requests</dd>
            <dt>Monthly cap</dt>
            <dd>{count(account.monthlyCap)} requests</dd>
            <dt>Security data</dt>
            <dd>{account.includesSecurity ? 'Included' : 'Not included'}</dd>
            <dt>Custom hostnames</dt>
            <dd>{account.customHostnames ? 'Included' : 'Not included'}</dd>
          </dl>
        </section>

        <section aria-labelledby="month-title">
          <h2 id="month-title">This month ({usage.month})</h2>
          <CapMeter overview={overview} />
          <p>
            This minute: {count(usage.thisMinute.used)} of {count(usage.thisMinute.limit)} requests; the
            window resets at {dateTime(usage.thisMinute.resetsAt)}.
          </p>
          <ScrollRegion label="Requests this month by kind">
            <table>
              <caption>Requests this month by kind</caption>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {KINDS.map((k) => (
                  <tr key={k}>
                    <th scope="row">{KIND_LABELS[k]}</th>
                    <td class="num">{count(usage.perKind[k])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </section>
      </div>

      <section aria-labelledby="daily-title">
        <h2 id="daily-title">Daily usage</h2>
        <UsageChart days={usage.days ?? []} />
      </section>

      <section aria-labelledby="calling-title">
        <h2 id="calling-title">Calling the API</h2>
        <p>
          Base address: <CopyValue text={overview.baseUrl} label="base address" />
        </p>
        {snippets(overview).map((s) => (
          <div class="snippet" key={s.title}>
            <div class="snippet-head">
              <h3>{s.title}</h3>
              <CopyButton text={s.code} label={`${s.title} example`} />
            </div>
            <ScrollRegion label={`${s.title} example`} class="code">
              <pre>
                <code>{s.code}</code>
              </pre>
            </ScrollRegion>
          </div>
        ))}
      </section>
    </>
  );
}

/** This month's usage against the cap, with the marks where usage notices are sent. */
function CapMeter({ overview }: { overview: Overview }) {
  const { used, cap, remaining } = overview.usage.thisMonth;
  const share = cap > 0 ? (used / cap) * 100 : 0;
  return (
    <div class="cap">
      <p id="cap-label">
        {count(used)} of {count(cap)} requests used ({percentOf(used, cap)}), {count(remaining)} left.
      </p>
      <div class="cap-bar">
        <progress max={Math.max(cap, 1)} value={Math.min(used, cap)} aria-labelledby="cap-label" />
        {overview.thresholds.map((t) => (
          <span
            key={t}
            class={share >= t ? 'cap-mark reached' : 'cap-mark'}
            style={{ '--at': `${Math.min(t, 100)}%` }}
            aria-hidden="true"
          />
        ))}
      </div>
      <ul class="cap-marks" aria-label="Usage notices">
        {overview.thresholds.map((t) => (
          <li key={t} class={share >= t ? 'reached' : undefined}>
            {t}%: {share >= t ? 'reached' : `at ${count(Math.ceil((cap * t) / 100))}`}
          </li>
        ))}
      </ul>
    </div>
  );
}

function snippets({ baseUrl }: Overview): { title: string; code: string }[] {
  return [
    {
      title: 'curl',
      code: `curl -s "${baseUrl}/v1/lookup/8.8.8.8" \\\n  -H "Authorization: Bearer $NETINTEL_SECRET_KEY"`,
    },
    {
      title: 'Browser fetch',
      code: [
        "// In your web page: a publishable key, locked to your site's origins (see API keys).",
        `const res = await fetch('${baseUrl}/v1/geo', {`,
        `  headers: { 'X-Api-Key': 'YOUR_PUBLISHABLE_KEY' },`,
        '});',
        'const visitor = await res.json();',
      ].join('\n'),
    },
    {
      title: 'Node.js',
      code: [
        '// On your server only: the secret key never goes to a browser.',
        `const res = await fetch('${baseUrl}/v1/email/batch', {`,
        "  method: 'POST',",
        '  headers: {',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript shown to the reader, not run here.
        '    Authorization: `Bearer ${process.env.NETINTEL_SECRET_KEY}`,',
        "    'Content-Type': 'application/json',",
        '  },',
        "  body: JSON.stringify({ emails: ['someone@example.com'] }),",
        '});',
        'const { results } = await res.json();',
      ].join('\n'),
    },
  ];
}
