/** The page shell the docs pages share with the identity provider's sign-in pages lives in src/pages/. */
export { escapeHtml, htmlPage, PAGE_CSP, STYLESHEET, STYLESHEET_PATH } from '../../pages/page.ts';
