import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { scrubKeys } from './log/key-mask.js';
import { prettyLine } from './log/pretty-line.js';

// One log format everywhere (docs/operations.md: Logs): Powertools' structured JSON, in Lambda, in the tests and
// from the local server, with every request's id (`correlation_id`) on its lines; `npm start` in a
// terminal prints the same entries as readable lines instead. No line ever holds an API key in full.

export type LogFormat = 'json' | 'pretty';

/** Where printed lines go: stdout, errors and warnings to stderr (as Powertools' own console). */
export type LogOutput = (line: string, level: string) => void;
const standardOutput: LogOutput = (line, level) =>
  (level === 'ERROR' || level === 'CRITICAL' || level === 'WARN' ? process.stderr : process.stdout).write(
    `${line}\n`,
  );

/** How a logger and its children print: one object, shared by the children a logger makes. */
interface Printing {
  format: LogFormat;
  output: LogOutput;
}

export type NetintelLoggerOptions = ConstructorOptions & {
  /** JSON (default) or readable lines. */
  format?: LogFormat;
  /** Default stdout, and stderr for errors and warnings. */
  output?: LogOutput;
};

/**
 * Powertools' Logger, printing through one place. A LogFormatter can only reshape the attributes,
 * which Logger.printLog always prints as JSON; a readable line and the key scrub need printLog
 * itself, the extension point Powertools documents for its subclasses (with createLogger, so
 * child loggers print the same way, and follow their parent's format).
 */
export class NetintelLogger extends Logger {
  private printing: Printing;

  constructor(options: NetintelLoggerOptions = {}, shared?: Printing) {
    const { format, output, ...powertools } = options;
    super(powertools);
    this.printing = shared ?? { format: format ?? 'json', output: output ?? standardOutput };
  }

  /** Prints readable lines (or JSON again) from now on, its children too: `npm start` in a terminal. */
  useFormat(format: LogFormat): void {
    this.printing.format = format;
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    const attributes = log.getAttributes();
    const line =
      this.printing.format === 'pretty'
        ? prettyLine(attributes)
        : JSON.stringify(attributes, this.getJsonReplacer());
    // The last guard: whatever was logged, a well-formed key is masked (log/key-mask.ts).
    this.printing.output(scrubKeys(line), String(attributes.level ?? 'INFO'));
  }

  protected override createLogger(options?: ConstructorOptions): Logger {
    return new NetintelLogger(options, this.printing);
  }
}

// One logger and one EMF metrics emitter per container, wired into every handler by the factory in
// http/define-handler.ts.
export const logger = new NetintelLogger({ serviceName: 'netintel' });

/**
 * The local server's access log and its own failures (scripts/local/api-gateway.ts): a child of
 * `logger`, printing the same way, with a level of its own, because Powertools puts the shared
 * logger back to its initial level at every handler invocation.
 */
export const accessLogger: Logger = logger.createChild();

/**
 * An EMF metrics emitter. Each service instance makes its own on first use (runtime/services.ts
 * `metrics`): Powertools reads POWERTOOLS_METRICS_DISABLED when the emitter is built, and the local
 * server sets it after this module is loaded.
 */
export function createMetrics(): Metrics {
  return new Metrics({ namespace: 'netintel', serviceName: 'netintel' });
}
