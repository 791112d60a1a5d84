// The project's zod: the tree-shakable `zod/mini` API (functions instead of methods: z.optional(x),
// x.check(z.minLength(1)), z._default(x, v)), with zod's English messages, which `zod/mini` leaves out
// unless asked. Every module of functions/ imports z from here, never from 'zod', so the classic API
// (about 20 KB more and a dozen milliseconds of every cold start, BENCHMARKS.md) stays out of the
// Lambda bundles. The messages matter: a refused request's `message` quotes them (http/validate.ts).
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';
