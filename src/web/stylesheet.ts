/**
 * The one stylesheet of every server-rendered page (and of the web app to come): small,
 * readable, fits a phone. Sent inline, allowed by its hash in each page's CSP.
 */
export const STYLE = `
:root{color-scheme:light dark;--ink:#1d2330;--muted:#5b6476;--line:#d5d9e2;--soft:#f5f7fb;--bg:#fff;--accent:#2957d8;--bad:#b42318;--good:#16794c;--tint:#eef4ff}
@media (prefers-color-scheme:dark){:root{--ink:#e6e9f0;--muted:#a3abbb;--line:#3a4252;--soft:#1c2230;--bg:#11151e;--accent:#8fb0ff;--bad:#ff8a80;--good:#6fd3a0;--tint:#1d2a45}}
*{box-sizing:border-box}
[hidden]{display:none!important}
a{color:var(--accent)}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--ink);background:var(--bg)}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.7rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700;color:var(--ink);text-decoration:none;font-size:1.1rem}
nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem;align-items:center}
nav a{color:var(--accent);text-decoration:none}
header.top form.inline{overflow-wrap:anywhere;max-width:100%}
nav a[aria-current=page]{font-weight:700;color:var(--ink)}
main{max-width:48rem;margin:0 auto;padding:1.2rem 1rem 3rem}
h1{font-size:1.45rem;margin:.3rem 0 .8rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.8rem 0 .6rem;overflow-wrap:anywhere}
p{margin:.4rem 0}
.muted{color:var(--muted);font-size:.95rem}
code,pre{font-family:ui-monospace,monospace;font-size:.9em;background:var(--soft);border-radius:4px;padding:.1em .3em;overflow-wrap:anywhere}
pre{padding:.8em;font-size:.85em;white-space:pre-wrap;overflow-wrap:break-word;max-width:100%}
pre code{padding:0;font-size:1em}
table{border-collapse:collapse}
td,th{border:1px solid var(--line);padding:.3em .5em;text-align:left;vertical-align:top}
td code{overflow-wrap:normal;white-space:nowrap}
form{margin:0}
form.inline{display:inline}
label{display:block;font-weight:600;margin:.7rem 0 .25rem}
input[type=email],input[type=text],input[type=url],select,textarea{width:100%;max-width:26rem;font:inherit;padding:.5rem .6rem;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--ink)}
input.code{font-family:ui-monospace,monospace;font-size:1.3rem;letter-spacing:.15em;max-width:14rem}
fieldset{border:1px solid var(--line);border-radius:8px;margin:.8rem 0;padding:.4rem .9rem .7rem}
legend{font-weight:600;padding:0 .3rem}
fieldset label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.3rem 0}
button,.button{display:inline-block;font:inherit;padding:.5rem 1rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--bg);font-weight:600;cursor:pointer}
a.button{text-decoration:none}
button.secondary,.button.secondary{background:var(--bg);color:var(--accent)}
button.danger{background:var(--bg);color:var(--bad);border-color:var(--bad)}
button.link{background:none;border:none;color:var(--accent);padding:0;font-weight:400}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:1rem}
.banner{padding:.8rem 1rem;border-radius:8px;margin:1rem 0;background:var(--tint)}
.banner.bad{background:#fdecea;color:var(--bad)}
.banner.good{background:#e8f5ee;color:var(--good)}
.secret{border:2px solid var(--good);border-radius:10px;padding:.9rem 1rem;margin:1rem 0;background:#f3fbf6}
.secret h2{margin-top:0}
.secret code{display:block;font:15px/1.4 ui-monospace,monospace;overflow-wrap:anywhere;word-break:break-all;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.5rem .6rem;margin:.5rem 0;user-select:all}
.cards{list-style:none;margin:0;padding:0}
.cards>li{border:1px solid var(--line);border-radius:10px;padding:.8rem 1rem;margin:.7rem 0}
.cards .title{display:flex;flex-wrap:wrap;gap:.3rem .7rem;align-items:baseline}
.cards .title strong{overflow-wrap:anywhere}
.choices{list-style:none;margin:1rem 0;padding:0;display:flex;flex-direction:column;align-items:flex-start;gap:.5rem}
.tag{display:inline-block;font-size:.8rem;padding:.05rem .45rem;border-radius:999px;background:var(--soft);border:1px solid var(--line)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .8rem;margin:.5rem 0;font-size:.93rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.switcher{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;max-width:100%;min-width:0}
.switcher label{margin:0;font-weight:400}
.switcher select{width:auto;flex:1 1 8rem;min-width:0;max-width:14rem;padding:.3rem .4rem}
.switcher button{padding:.3rem .6rem}
.row-form{display:flex;flex-wrap:nowrap;gap:.5rem;align-items:center;min-width:0;max-width:100%}
.row-form label{margin:0;font-weight:400}
.row-form select{width:auto;flex:1 1 9rem;min-width:0;max-width:14rem}
.row-form button{flex:none}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.drop{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.4rem;min-height:11rem;margin:1.2rem 0;padding:1.5rem;border:2px dashed var(--line);border-radius:12px;text-align:center;font-weight:400;cursor:pointer;background:var(--soft)}
.drop:hover,.drop.over{border-color:var(--accent);background:var(--tint)}
.drop strong{font-size:1.1rem}
input[type=file]:focus-visible+.drop{outline:3px solid var(--accent);outline-offset:2px}
.files{list-style:none;margin:0;padding:0}
.files li{display:grid;grid-template-columns:4rem 1fr;gap:.3rem .8rem;align-items:center;padding:.7rem 0;border-top:1px solid var(--line)}
.files .thumb{grid-row:span 3;width:4rem;height:4rem;border-radius:6px;background:#eef0f4;object-fit:cover;display:block}
.files .name{font-weight:600;overflow-wrap:anywhere}
.files progress{width:100%;height:.6rem}
.files .status{font-size:.9rem;color:var(--muted)}
.files li.done .status{color:var(--good)}
.files li.failed .status{color:var(--bad)}
.files li.failed progress{display:none}
.files button.retry{margin-left:.5rem;padding:.1rem .6rem;font-size:.85rem}
@media (max-width:30rem){header.top{flex-direction:column;align-items:flex-start}}
@media (prefers-color-scheme:dark){.banner.bad{background:#3a1d1d}.banner.good,.secret{background:#16291f}.secret code{background:var(--bg)}.files .thumb{background:var(--soft)}}
`;
