import { enhance, prefillCountry } from './widget.js';

// The script-tag build: <script src="netintel-widget.js" data-key="ni_pub_..." data-api="https://api…"
// defer></script> enhances every <input type="email" data-netintel> and fills every
// <select data-netintel-country> of the page. The ESM build (index.ts) exports the functions instead.

const script = document.currentScript as HTMLScriptElement | null;
const options = { apiUrl: script?.dataset.api ?? '', publishableKey: script?.dataset.key ?? '' };

function start() {
  if (!options.apiUrl || !options.publishableKey) {
    console.warn('netintel widget: the script tag needs data-api and data-key');
    return;
  }
  for (const input of document.querySelectorAll<HTMLInputElement>('input[type=email][data-netintel]')) {
    enhance(input, options);
  }
  for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-netintel-country]')) {
    void prefillCountry(select, options);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
