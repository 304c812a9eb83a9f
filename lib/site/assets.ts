/**
 * The small same-origin assets of the pages (lib/site/pages.ts), served by the Worker: the stylesheet of
 * the home page and the script that starts Swagger UI on `/docs` (a file, because the CSP allows no inline
 * script). Swagger UI itself is a static asset (public/docs/assets/, vendored at build time).
 */

/** Stylesheet of the home page: system fonts, readable on a phone (fluid width, wrapping code, scrolling tables). */
export const SITE_CSS = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--code:#f3f4f6;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#111418;--muted:#9aa4ae;--code:#1d2228;--link:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:52rem;margin:0 auto;padding:1.25rem}
h1{font-size:2rem;margin:.5rem 0}
h2{margin-top:2rem;font-size:1.35rem}
h3{font-size:1.05rem}
a{color:var(--link)}
.lead{font-size:1.1rem;color:var(--muted)}
.links{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
pre{background:var(--code);padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap}
table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid var(--code);vertical-align:top}
details{border:1px solid var(--code);border-radius:6px;padding:.25rem .75rem;margin:.5rem 0}
summary{cursor:pointer;font-weight:600;padding:.25rem 0}
h4{font-size:.95rem;margin:1rem 0 .25rem}
a.install{display:inline-block;padding:.35rem .75rem;border-radius:6px;background:var(--link);color:var(--bg);text-decoration:none}
`;

/**
 * Stylesheet of `/docs`, loaded after Swagger UI's own: one column for the introduction and the operations
 * (64rem at most, the same left edge), colours that reach 4.5:1 against their background (WCAG 2.2 AA: the
 * version badges, links, the Authorize button and the methods' labels, whose stock colours reach 1.1 to
 * 3.3), operation ids that never break inside the word (on a phone the summary wraps whole items instead),
 * and a tag's description under its name on a phone rather than in a column a word wide.
 */
export const DOCS_CSS = `.swagger-ui .wrapper{max-width:64rem;padding:0 1rem}
.swagger-ui .information-container .info{margin:2rem 0 1rem}
.swagger-ui .info .title small{background:#4a5260}
.swagger-ui .info .title small.version-stamp{background:#3a6500}
.swagger-ui a,.swagger-ui .info a,.swagger-ui .info .base-url{color:#0b57d0}
.swagger-ui .btn.authorize{color:#17653f;border-color:#17653f}
.swagger-ui .btn.authorize svg{fill:#17653f}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1f64b8}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#17653f}
.swagger-ui .opblock .opblock-summary-operation-id{word-break:keep-all;overflow-wrap:normal;white-space:nowrap}
@media (max-width:40rem){
.swagger-ui .opblock .opblock-summary-control{flex-wrap:wrap;gap:.25rem 0}
.swagger-ui .opblock .opblock-summary-path-description-wrapper{flex-basis:calc(100% - 5rem);min-width:0}
.swagger-ui .opblock .opblock-summary-path{word-break:normal;overflow-wrap:anywhere}
.swagger-ui .opblock .opblock-summary-operation-id{flex-basis:100%;padding:0 0 0 .5rem}
.swagger-ui .opblock-tag{flex-wrap:wrap}
.swagger-ui .opblock-tag small{flex:1 0 100%;order:3;padding:.25rem 0 .5rem}
}
`;

/**
 * Starts Swagger UI on the OpenAPI document of this origin: deep links (`/docs#/<tag>/<operationId>`, the
 * URLs `search_docs` returns), every operation listed, examples shown, and no call to any other origin
 * (`validatorUrl: null` turns off the badge that would send the document to validator.swagger.io).
 */
export const SWAGGER_INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: -1,
    displayOperationId: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;
