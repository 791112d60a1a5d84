import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { createNodeMxResolver, type NodeMxResolver } from '../../../functions/lib/dns/resolver.js';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { RESULT_COLUMNS, resultLine } from '../../../functions/lib/jobs/results-csv.js';
import { a, type DnsServer, mx, startDnsServer } from '../../support/dns-server.js';
import { fixtureLists } from '../../unit/email/support/zone-resolver.js';

// End to end through the real node:dns adapter: a DNS server that answers an MX name built as a
// spreadsheet formula. The name reaches the check verbatim; it is not a host name, so the domain has
// no mail server and the results line carries no MX host.

const FORMULA_MX = "=cmd|'/ccalc'!a0.evil.example";

let server: DnsServer;
let resolver: NodeMxResolver;

describe('mx-invalid-host', () => {
  beforeAll(async () => {
    server = await startDnsServer({
      answer: (name) => {
        if (name === 'formula-mx.example') return [mx(FORMULA_MX), a('192.0.2.41')];
        if (name === 'formula-and-real-mx.example') {
          return [mx(FORMULA_MX, 0), mx('mail.formula-and-real-mx.example', 10)];
        }
        return 'nxdomain';
      },
    });
    // The server answers: the timeout only bounds a hang, with room for a loaded 2-core machine.
    resolver = createNodeMxResolver({ servers: [server.address], timeoutMs: 5_000, tries: 1 });
  });

  afterAll(async () => {
    resolver.close();
    await server.close();
  });

  function cells(line: string): Record<string, string> {
    const [row] = parse(line, { record_delimiter: '\r\n' }) as string[][];
    return Object.fromEntries(RESULT_COLUMNS.map((column, i) => [column, row![i]!]));
  }

  describe('an MX name that is a spreadsheet formula, through the DNS adapter', () => {
    test('the DNS answer carries the formula name verbatim', async () => {
      const answer = await resolver.resolveMx('formula-mx.example');
      expect(answer).toEqual({ kind: 'records', records: [{ exchange: FORMULA_MX, priority: 10 }] });
    });

    test('as the only MX it is no mail server: reject, no_mail_server, empty mx_host cell', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
      const result = await checker.check('someone@formula-mx.example');
      expect(result.mx).toEqual({ status: 'none', host: null });
      expect(result.verdict).toBe('reject');
      expect(result.reasons).toEqual(['no_mail_server']);
      expect(cells(resultLine(result))).toMatchObject({ verdict: 'reject', mx_status: 'none', mx_host: '' });
      expect(server.count('A', 'formula-mx.example')).toBe(0);
    });

    test('beside a real MX it is ignored and the real host is reported', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
      const result = await checker.check('someone@formula-and-real-mx.example');
      expect(result.mx).toEqual({ status: 'found', host: 'mail.formula-and-real-mx.example' });
      expect(cells(resultLine(result)).mx_host).toBe('mail.formula-and-real-mx.example');
    });
  });
});
