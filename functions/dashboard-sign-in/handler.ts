import { dashboardUrl, signInDeps } from '../lib/aws/services.js';
import { requestSignInLink } from '../lib/dashboard/sign-in.js';
import { viewerAddress } from '../lib/gateway/edge-origin.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError } from '../lib/http/errors.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';
import { SignInBody } from './contract.js';

// POST /v1/dashboard/sign-in: the same 202 whether or not the address is a member's.
export const SIGN_IN_ANSWER =
  'If this address may sign in, a link is on its way; it works once, within 15 minutes.';

export const handler = defineHandler({
  route: routeByName('dashboard-sign-in'),
  input: (req) => validate(SignInBody, readJsonBody(req)),
  run: async ({ email }, { req, services }) => {
    const url = dashboardUrl(services, req.headers);
    if (!url) throw new HttpError('bad_request', "Ask for a sign-in link on the dashboard's own address.");
    // The limits count the visitor: behind our CloudFront, sourceIp is CloudFront's server.
    const clientIp = viewerAddress(req, services.config.ORIGIN_SECRET) ?? req.sourceIp;
    await requestSignInLink(email, { clientIp, dashboardUrl: url }, signInDeps(services));
    return { status: 202, json: { message: SIGN_IN_ANSWER } };
  },
});
