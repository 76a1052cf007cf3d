/**
 * The shell of the service's own HTML pages (sign-in, consent, problem pages): one stylesheet served by
 * the service, no script, and the one policy those pages need.
 */
import { readFileSync } from 'node:fs';

export const STYLESHEET_PATH = '/assets/pages.css';
/** Read once: the stylesheet is part of the code, not of the data. */
export const STYLESHEET = readFileSync(new URL('./pages.css', import.meta.url), 'utf8');

/**
 * Nothing but the stylesheet from this origin. No form-action: browsers apply it to the redirects after a
 * form post, which end at the OAuth client's redirect URI.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `body` is HTML already escaped by the caller; the title is escaped here. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}
