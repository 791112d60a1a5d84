import { api } from '../api.js';
import { ErrorMessage, Loading } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { count, dateTime } from '../format.js';
import { useLoad } from '../use-load.js';

export function NoticesPage() {
  const { data, error, loading } = useLoad(api.notices);
  return (
    <>
      <PageHeading>Usage notices</PageHeading>
      <p>The e-mails sent this month when usage reached 75%, 90% and 100% of the monthly cap.</p>
      {loading && !data && <Loading what="notices" />}
      <ErrorMessage error={error} />
      {data && data.length === 0 && <p>No usage notice was sent this month.</p>}
      {data && data.length > 0 && (
        <ScrollRegion label="Notices sent this month">
          <table>
            <caption>Notices sent this month</caption>
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Threshold</th>
                <th scope="col" class="num">
                  Used
                </th>
                <th scope="col" class="num">
                  Cap
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((n) => (
                <tr key={`${n.month}-${n.percent}`}>
                  <td>{dateTime(n.sentAt)}</td>
                  <td>{n.percent}%</td>
                  <td class="num">{n.used === null ? '—' : count(n.used)}</td>
                  <td class="num">{n.cap === null ? '—' : count(n.cap)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </>
  );
}
