/**
 * The frame of every public page: the page's name, logo and brand colour in the header (its text
 * colour chosen for contrast), a skip link, the feeds, the operator's footer links and the page's
 * other languages, and a small inline stylesheet so a page is one request. The CSP allows that
 * stylesheet by its hash and no script at all. `<html lang>` is the page's language.
 */
import { createHash } from "node:crypto"

import { messagesFor } from "../../i18n/Messages.js"
import { readableTextOn } from "./Contrast.js"
import { html, Raw } from "./Html.js"
import { href, messagesOf, type PageRender } from "./PageRender.js"

const stylesheet = (brand: string) => `
:root{--brand:${brand};--brand-ink:${
  readableTextOn(brand)
};--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--up:#1a7f37;--dip:#7d8c00;--down:#bc4c00;--out:#cf222e;--none:#afb8c1;--before:#eaeef2;--maint:#0550ae;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);line-height:1.45;background:#fff}
*{box-sizing:border-box}body{margin:0}a{color:#0b57d0}:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:.5rem;top:-3rem;background:#fff;color:#0b57d0;padding:.5rem 1rem}.skip:focus{top:.5rem}
.vh,.bar span{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.brand{background:var(--brand);color:var(--brand-ink);padding:1rem 1.25rem}header.brand a{color:inherit;text-decoration:none;display:flex;align-items:center;gap:.75rem;font-size:1.3rem;font-weight:700;max-width:56rem;margin:0 auto}
header.brand img{height:2.5rem;width:auto;max-width:10rem}
main{max-width:56rem;margin:0 auto;padding:1.25rem}h1{font-size:1.5rem;margin:0}h2{font-size:1.2rem;margin:2rem 0 .75rem}h3{font-size:1rem;margin:0}
.banner{display:flex;gap:.75rem;align-items:center;padding:1rem 1.25rem;border-radius:8px;color:#fff;background:var(--out)}
.banner.operational{background:var(--up)}.banner.degraded,.banner.partial_outage{background:var(--down)}.banner.maintenance{background:var(--maint)}
.mark{font-weight:700;display:inline-block;min-width:1.2em;text-align:center}
ul.plain{list-style:none;margin:0;padding:0}.card{border:1px solid var(--line);border-radius:8px;padding:.9rem 1rem;margin-bottom:.75rem}
.row{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;align-items:baseline}
.st{font-weight:600}.st.operational{color:var(--up)}.st.degraded,.st.partial_outage{color:var(--down)}.st.major_outage{color:var(--out)}.st.maintenance{color:var(--maint)}
.bar{display:flex;gap:2px;list-style:none;margin:.5rem 0 0;padding:0;height:2rem}.bar li{flex:1;border-radius:2px;background:var(--up);position:relative}
.bar li:hover,.bar li:focus{outline:2px solid var(--ink);outline-offset:1px}
.bar li:hover span,.bar li:focus span{clip:auto;overflow:visible;height:auto;width:max-content;max-width:min(18rem,60vw);white-space:normal;bottom:calc(100% + .4rem);left:50%;transform:translateX(-50%);z-index:1;background:var(--ink);color:#fff;padding:.3rem .55rem;border-radius:4px;font-size:.8rem}
.bar li:nth-child(-n+30) span{left:0;transform:none}.bar li:nth-child(n+61) span{left:auto;right:0;transform:none}
.bar .before{background:var(--before)}.bar .none{background:var(--none)}.bar .dip{background:var(--dip)}.bar .down{background:var(--down)}.bar .out{background:var(--out)}
details{margin:.75rem 0 0}summary{cursor:pointer;font-weight:600;color:#0b57d0}.members{margin:.5rem 0 0}.members .card{margin:.5rem 0 0}h4{font-size:1rem;margin:0}
.uptime .small{display:flex;justify-content:space-between;gap:.5rem}.response-times{margin:.75rem 0 0}.response-times svg{display:block;max-width:40rem;height:auto}.small{font-size:.875rem;color:var(--muted);margin:.25rem 0 0}
.postmortem pre{overflow:auto;background:#f6f8fa;padding:.75rem;border-radius:6px}.postmortem code{font-size:.9em}.timeline{list-style:none;padding:0;margin:0}.timeline li{border-left:3px solid var(--line);padding:.25rem 0 .75rem .9rem}
form.subscribe{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}form .field{display:grid;gap:.25rem;flex:1 1 16rem}label{font-weight:600}
fieldset.choices{flex:1 1 100%;border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.5rem .9rem}fieldset.choices ul{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.25rem 1rem;margin-top:.5rem}fieldset.choices label{font-weight:400}fieldset.choices input{width:1.1rem;height:1.1rem;vertical-align:-.15rem}
input[type=email]{font:inherit;padding:.5rem .6rem;border:1px solid #6e7781;border-radius:6px;width:100%}input[aria-invalid=true]{border:2px solid var(--out)}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}
.error{color:#a40e26;font-weight:600;margin:.25rem 0 0}.notice{border-left:4px solid var(--up);padding:.5rem .9rem;background:#f6f8fa}.notice.bad{border-color:var(--out)}
footer{max-width:56rem;margin:2rem auto;padding:0 1.25rem 2rem;color:var(--muted);font-size:.875rem}
@media (max-width:40rem){main{padding:1rem}.bar{gap:1px;height:1.75rem}}
`

export interface PageOptions {
  readonly render: PageRender
  readonly title: string
  readonly body: Raw
  /** Rules only this page needs, after the shared ones (so every other page keeps its stylesheet and hash). */
  readonly css?: string | undefined
}

export interface RenderedPage {
  readonly html: string
  readonly contentSecurityPolicy: string
}

/** The operator's footer links, then the page's other languages, each named in its own language. */
const footerExtras = (render: PageRender) => {
  const m = messagesOf(render)
  const others = render.languages.length > 1 ? render.languages.filter((locale) => locale !== render.locale) : []
  return html`${
    render.footerLinks.length > 0 &&
    html`<nav aria-label="${m.layout.links}"><p>${
      render.footerLinks.map((link, i) => html`${i > 0 && " · "}<a href="${link.url}">${link.label}</a>`)
    }</p></nav>`
  }${
    others.length > 0 &&
    html`<nav aria-label="${m.layout.languages}"><p>${
      others.map((locale, i) =>
        html`${i > 0 && " · "}<a href="${render.base}/?lang=${
          encodeURIComponent(locale)
        }" hreflang="${locale}" lang="${locale}">${messagesFor(locale).languageName}</a>`
      )
    }</p></nav>`
  }`
}

export const renderPage = ({ body, css: extraCss, render, title }: PageOptions): RenderedPage => {
  const { organization } = render.state
  const m = messagesOf(render)
  const css = stylesheet(organization.brandColor) + (extraCss ?? "")
  const styleHash = createHash("sha256").update(css).digest("base64")
  const rss = href(render, "/api/v1/status/rss")
  const atom = href(render, "/api/v1/status/atom")
  const page = html`<!doctype html>
<html lang="${render.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/rss+xml" title="${m.layout.rssTitle(organization.name)}" href="${rss}">
<link rel="alternate" type="application/atom+xml" title="${m.layout.atomTitle(organization.name)}" href="${atom}">
<style>${new Raw(css)}</style></head>
<body><a class="skip" href="#main">${m.layout.skip}</a>
<header class="brand"><a href="${href(render, "/")}">${
    organization.logoUrl
      ? html`<img src="${organization.logoUrl}" alt="${organization.name}">`
      : html`<span>${organization.name}</span>`
  }<span class="vh">${m.layout.brandSuffix}</span></a></header>
<main id="main">${body}</main>
<footer><p>${m.layout.followUpdates} <a href="${rss}">${m.layout.rss}</a> · <a href="${atom}">${m.layout.atom}</a> · <a href="${
    href(render, "/history")
  }">${m.layout.history}</a> · <a href="${render.base}/api/v1/status">${m.layout.jsonApi}</a></p>${
    footerExtras(render)
  }</footer>
</body></html>`
  return {
    html: page.markup,
    contentSecurityPolicy: [
      "default-src 'none'",
      `style-src 'sha256-${styleHash}'`,
      "img-src 'self' https: data:",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'"
    ].join("; ")
  }
}
