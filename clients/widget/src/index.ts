export {
  type EmailCheck,
  enhance,
  type Messages,
  prefillCountry,
  type ResultDetail,
  type WidgetOptions,
} from './widget.js';
