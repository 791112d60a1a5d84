import type { Job } from '../api-types.js';
import { count, shareOf, sharesOf } from '../format.js';

type Summary = NonNullable<Job['summary']>;

const VERDICT_TEXT: Readonly<Record<keyof Summary['verdicts'], string>> = {
  accept: 'Accept',
  review: 'Review',
  reject: 'Reject',
};

/**
 * A completed job's summary as bars: rows per verdict, then per reason code. A table underneath,
 * so the figures are read out as they are shown; bar lengths are set through the CSSOM.
 */
export function SummaryChart({ summary, total }: { summary: Summary; total: number }) {
  const verdicts = (Object.keys(VERDICT_TEXT) as (keyof Summary['verdicts'])[]).map((v) => ({
    key: v,
    label: VERDICT_TEXT[v],
    n: summary.verdicts[v],
  }));
  const reasons = Object.entries(summary.reasons).map(([code, n]) => ({ key: code, label: code, n: n ?? 0 }));
  return (
    <div class="summary">
      <Bars
        caption="Rows by verdict"
        rows={verdicts}
        total={total}
        kind="verdict"
        shares={sharesOf(
          verdicts.map((r) => r.n),
          total,
        )}
      />
      {reasons.length > 0 && (
        // A row may have several reasons: theirs are shares each, not parts of one whole.
        <Bars
          caption="Rows by reason"
          rows={reasons}
          total={total}
          kind="reason"
          shares={reasons.map((r) => shareOf(r.n, total))}
        />
      )}
    </div>
  );
}

function Bars({
  caption,
  rows,
  total,
  kind,
  shares,
}: {
  caption: string;
  rows: { key: string; label: string; n: number }[];
  total: number;
  kind: string;
  /** Each row's share of `total`, as read out. */
  shares: string[];
}) {
  return (
    <table class="bars">
      <caption>{caption}</caption>
      <tbody>
        {rows.map((r, i) => (
          <tr key={r.key}>
            <th scope="row">{kind === 'reason' ? <code>{r.label}</code> : r.label}</th>
            <td class="bar-cell">
              <span
                class={`bar ${kind}-${r.key}`}
                style={{ '--share': total > 0 ? `${(r.n / total) * 100}%` : '0%' }}
              />
            </td>
            <td class="num">
              {count(r.n)} ({shares[i]})
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
