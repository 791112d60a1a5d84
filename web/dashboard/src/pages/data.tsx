import type { ComponentChildren } from 'preact';
import { api } from '../api.js';
import type { DataReport, Dataset } from '../api-types.js';
import { ErrorMessage, Loading } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { count, dateTime } from '../format.js';
import { useLoad } from '../use-load.js';

// The Data page: the deployment's data in service (GET /v1/dashboard/data, the report GET /v1/data
// answers; docs/data-sources.md), the same for every account. What is missing comes first.

/** What a dataset serves, in words (the report's area, and its role for the IP data). */
const AREA_TEXT: Readonly<Record<Dataset['area'], string>> = {
  ip: 'IP lookups',
  security: 'Security flags',
  email: 'Email checks',
};
const ROLE_TEXT: Readonly<Record<string, string>> = {
  location: 'location',
  network: 'network (ASN)',
  postal: 'postal codes',
  subdivisions: 'region names',
  geofeed: 'operator geofeeds',
};

function serves(d: Dataset): string {
  const role = d.role ? (ROLE_TEXT[d.role] ?? d.role) : null;
  return role ? `${AREA_TEXT[d.area]}: ${role}` : AREA_TEXT[d.area];
}

/** A version that is a time (a list's fetch) reads as one; a package or build version as it is. */
function versionText(version: string): string {
  return /^\d{4}-\d{2}-\d{2}T/.test(version) ? dateTime(version) : version;
}

/** `text` with its `quoted` parts as code (the fix names a command). */
function withCode(text: string): ComponentChildren {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? <code key={part}>{part}</code> : part));
}

/** A source that starts with an address links to it; the rest of its words follow. */
function Source({ source }: { source: string }) {
  const m = /^(https?:\/\/\S+)(.*)$/.exec(source);
  if (!m) return <>{source}</>;
  return (
    <>
      <a href={m[1]} rel="noreferrer">
        {m[1]}
      </a>
      {m[2]}
    </>
  );
}

export function DataPage() {
  const { data, error, loading } = useLoad(api.data);
  return (
    <>
      <PageHeading>Data</PageHeading>
      <p>
        The data this deployment answers from: where each dataset comes from, its version and licence. It is
        the same for every account.
      </p>
      {loading && !data && <Loading what="the data in service" />}
      <ErrorMessage error={error} />
      {data && <DataBody report={data} />}
    </>
  );
}

function DataBody({ report }: { report: DataReport }) {
  return (
    <>
      {report.missing.length > 0 && (
        <section class="card missing-notice" aria-labelledby="missing-title">
          <h2 id="missing-title">Some data is missing</h2>
          <p>Answers that need it are incomplete until it is filled:</p>
          <ul>
            {report.missing.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
          {report.fix && <p>{withCode(report.fix)}</p>}
        </section>
      )}

      <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        <dl class="facts">
          <dt>IP data</dt>
          <dd>{report.versions.ip ? <code>{report.versions.ip}</code> : 'None'}</dd>
          <dt>Security and email lists</dt>
          <dd>{report.versions.lists ? <code>{report.versions.lists}</code> : 'None'}</dd>
        </dl>
      </section>

      <section aria-labelledby="datasets-title">
        <h2 id="datasets-title">Datasets</h2>
        {report.datasets.length === 0 ? (
          <p>No dataset is in service.</p>
        ) : (
          <ScrollRegion label="Datasets in service">
            <table class="datasets">
              <caption>Datasets in service</caption>
              <thead>
                <tr>
                  <th scope="col">Dataset</th>
                  <th scope="col">Serves</th>
                  <th scope="col">Source</th>
                  <th scope="col">Version</th>
                  <th scope="col">Last checked</th>
                  <th scope="col" class="num">
                    Records
                  </th>
                  <th scope="col">Licence</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {report.datasets.map((d) => (
                  <tr key={d.name}>
                    <th scope="row">
                      {d.name}
                      {d.edition && <span class="help block">{d.edition}</span>}
                      {d.note && <span class="help block">{d.note}</span>}
                    </th>
                    <td class="serves">{serves(d)}</td>
                    <td class="source">
                      <Source source={d.source} />
                    </td>
                    <td class="version">
                      {versionText(d.version)}
                      {d.builtAt && <span class="help block">built {dateTime(d.builtAt)}</span>}
                    </td>
                    <td class="checked">{d.checkedAt ? dateTime(d.checkedAt) : 'Not checked'}</td>
                    <td class="num">{count(d.count)}</td>
                    <td class="licence">{d.licence}</td>
                    <td>
                      <span class={`badge data-${d.status}`}>
                        {d.status === 'ok' ? 'In service' : 'Missing'}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
      </section>

      <section aria-labelledby="attribution-title">
        <h2 id="attribution-title">Attribution</h2>
        {report.attribution.length === 0 ? (
          <p>No source in service asks for a credit line.</p>
        ) : (
          <>
            <p>
              The credit lines the licences of the sources in service ask for, wherever their data is shown:
            </p>
            <ul class="attribution">
              {report.attribution.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </>
        )}
      </section>
    </>
  );
}
