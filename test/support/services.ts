import type { Clock } from '../../functions/lib/clock.js';
import { parseConfig } from '../../functions/lib/runtime/config.js';
import { createServices, type Services } from '../../functions/lib/runtime/services.js';

/**
 * A service instance of its own for a test (functions/lib/runtime/services.ts): from these
 * variables alone, not the process environment, so no test sees another's stores or settings.
 */
export function testServices(env: Record<string, string | undefined> = {}, clock?: Clock): Services {
  return createServices(parseConfig(env), clock ? { clock } : {});
}
