import type { Meter } from './api-types.js';

// The request kinds the monthly cap counts (the route table's meters), in the order pages list
// them. A Record over the server's Meter type: a new meter fails the type check until named here.
export const KIND_LABELS: Readonly<Record<Meter, string>> = {
  geo: 'Geolocation',
  lookup: 'IP lookup',
  email: 'Email checks',
  signup: 'Signup checks',
  risk: 'Risk checks',
};

export const KINDS = Object.keys(KIND_LABELS) as Meter[];

/** Line colours of the usage chart, told apart by people with the common colour-vision deficiencies. */
export const KIND_COLOURS: Readonly<Record<Meter, string>> = {
  geo: '#0072b2',
  lookup: '#e69f00',
  email: '#009e73',
  signup: '#cc79a7',
  risk: '#d55e00',
};
