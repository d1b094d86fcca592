export * from './names.js';
export { renderText, headerLines, type TextReportOptions } from './text.js';
export { renderCollapsed, collapsedFrame, type CollapsedOptions } from './collapsed.js';
export { renderJson, buildJsonReport, type JsonReport } from './json.js';
export { renderHtml, renderFlameHtml, flamePayload, diffFlamePayload, escapeHtml, scriptJson, type FlamePayload } from './html.js';
export * from './diff.js';
