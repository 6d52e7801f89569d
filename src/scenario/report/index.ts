/** Trace reports: pure renderers from trace events to text (the CLI writes the files). */
export { renderSpaceTimeHtml, type SpaceTimeHtmlOptions } from "./space-time-html.js";
export { layoutSpaceTime, SPACE_TIME_MAX_MESSAGES, type SpaceTimeLayout } from "./space-time.js";
export { renderShiviz, shivizIncludes, SHIVIZ_MAX_EVENTS, SHIVIZ_REGEX, WORLD_HOST, type ShivizLog } from "./shiviz.js";
export type { TraceReportMeta } from "./meta.js";
export { bookPhaseOf } from "./zab-book.js";
export { bookTermsOfMessages } from "../../zk/server/quorum/zab-book-terms.js";
