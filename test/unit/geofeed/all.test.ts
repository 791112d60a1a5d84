// The geofeed unit tests run as one Jest file, as the other unit folders do: each *.cases.ts is
// written like a test file of its own and listed here.
import './geofeed.cases.js';
