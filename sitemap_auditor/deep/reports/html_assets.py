"""What the HTML report carries besides its content: its one style sheet and its one script,
inline, and the Content-Security-Policy that allows exactly those two by their hashes."""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CSP", "LIGHT_PALETTE", "SCRIPT", "STYLE"]


# The light palette is also the printed one, whatever the reader's screen prefers.
LIGHT_PALETTE = (
    "--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--link:#0550ae;"
    "--err:#b3261e;--warn:#8a4b00;--note:#0a58a8;--ok:#1a7f37;--bar:#3a6db3;--future:#c25e00;"
    "--errbg:#ffebe9;--warnbg:#fff3d6;--notebg:#ddf4ff;--okbg:#dafbe1"
)
STYLE = (
    """
:root{LIGHT}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa6b2;--line:#333c46;
--soft:#161c23;--link:#6cb6ff;--err:#ff8a80;--warn:#e8b04b;--note:#7cc4ff;--ok:#5fd07a;
--bar:#5b9ae8;--future:#ff9a40;--errbg:#3b1618;--warnbg:#33260b;--notebg:#0c2a45;--okbg:#0f2e1a}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",
Roboto,"Noto Sans",sans-serif}
body{margin:0 auto;max-width:76rem;padding:0 1rem 3rem;overflow-wrap:break-word}
a{color:var(--link)}code{font:0.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
overflow-wrap:anywhere}
h1{font-size:1.8rem;margin:.2rem 0;overflow-wrap:anywhere}h1 a{color:inherit}
h2{font-size:1.4rem;margin:2.2rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1.1rem;margin:0 0 .4rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg)}
.top{padding:1.5rem 0 .5rem}.eyebrow{margin:0;color:var(--muted);text-transform:uppercase;
letter-spacing:.08em;font-size:.8rem;font-weight:600}.sub{margin:.2rem 0;color:var(--muted);
overflow-wrap:anywhere}
nav ul{list-style:none;padding:0;margin:.6rem 0 0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem}
.verdict{border-left:6px solid var(--c);background:var(--cb);padding:.8rem 1rem;border-radius:6px;
margin:.5rem 0 1rem}.verdict p{margin:0}.vlabel{font-size:.8rem;color:var(--muted)}
.vstatus{font-size:1.6rem;font-weight:700;color:var(--c)}.vmsg{overflow-wrap:anywhere}
.v-ok{--c:var(--ok);--cb:var(--okbg)}.v-warn{--c:var(--warn);--cb:var(--warnbg)}
.v-err{--c:var(--err);--cb:var(--errbg)}.v-note{--c:var(--note);--cb:var(--notebg)}
.tiles{list-style:none;padding:0;margin:0 0 .8rem;display:grid;gap:.6rem;
grid-template-columns:repeat(auto-fill,minmax(11rem,1fr))}
.tile{border:1px solid var(--line);border-radius:6px;padding:.5rem .8rem;color:var(--muted)}
.tile .n{display:block;font-size:1.4rem;font-weight:700;color:var(--fg);white-space:nowrap}
.t-err{border-color:var(--err);background:var(--errbg)}.t-err .n{color:var(--err)}
.t-warn{border-color:var(--warn);background:var(--warnbg)}.t-warn .n{color:var(--warn)}
.t-note .n{color:var(--note)}.t-zero .n{color:var(--ok)}
.worst{font-weight:600}.tiles-h{margin:.2rem 0 .4rem;font-weight:600}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.warn-text{color:var(--warn)}.nw{white-space:nowrap}
.left-out{border:1px dashed var(--line);border-radius:6px;padding:.2rem 1rem;margin:.8rem 0;
background:var(--soft)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}caption{text-align:left;
font-weight:600;padding:.3rem 0}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th[data-num].num{text-align:right}
thead th{background:var(--soft)}
button{font:inherit;color:inherit;background:var(--soft);border:1px solid var(--line);
border-radius:4px;padding:.1rem .6rem;cursor:pointer}
th button.sort{border:0;background:none;padding:0;font-weight:700}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.controls{margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
input[type=search]{font:inherit;padding:.2rem .4rem;border:1px solid var(--line);
border-radius:4px;background:var(--bg);color:var(--fg)}
.pill{display:inline-block;border-radius:999px;padding:0 .55rem;font-size:.8rem;font-weight:600;
border:1px solid var(--c);color:var(--c);background:var(--cb);margin-right:.25rem;
white-space:nowrap}
.p-err{--c:var(--err);--cb:var(--errbg)}.p-warn{--c:var(--warn);--cb:var(--warnbg)}
.p-note{--c:var(--note);--cb:var(--notebg)}.p-ok{--c:var(--ok);--cb:var(--okbg)}
.p-other{--c:var(--muted);--cb:var(--soft)}.f-other{--c:var(--muted)}
.hint{color:var(--muted)}
.finding{border:1px solid var(--line);border-left:6px solid var(--c);border-radius:6px;
padding:.8rem 1rem;margin:1rem 0;break-inside:avoid}
.f-err{--c:var(--err)}.f-warn{--c:var(--warn)}.f-note{--c:var(--note)}.f-ok{--c:var(--ok)}
.finding h3 code{font-size:.75rem;color:var(--muted);font-weight:400}
.finding .count{margin:.1rem 0 .4rem;color:var(--muted)}
.meaning,.fix{margin:.3rem 0;overflow-wrap:anywhere}
.occurrences{list-style:none;padding:0;margin:.5rem 0 0}
.occurrences>li{border-top:1px solid var(--line);padding:.4rem 0}.where{margin:0}
.url{overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:.9em}
.examples{width:auto;max-width:100%;font-size:.9rem;margin:.3rem 0}
.examples td{padding:.1rem .6rem}
.examples td:first-child{color:var(--muted);white-space:nowrap;text-align:right}
.more{color:var(--muted);font-style:italic}
.more-occ>summary{cursor:pointer;color:var(--link);padding:.3rem 0}
figure{margin:1rem 0 2rem}figcaption p{margin:0 0 .4rem;color:var(--muted)}
.chartbox{overflow-x:auto}
svg.chart{width:100%;height:auto;max-width:720px;display:block}
svg text{fill:var(--fg);font-size:13px;font-family:system-ui,sans-serif}
svg .c-axis{fill:var(--muted);font-size:12px}svg .c-value{fill:var(--muted)}
.c-bar{fill:var(--bar)}.c-future{fill:var(--future)}.c-over{fill:var(--muted)}
.c-err{fill:var(--err)}.c-warn{fill:var(--warn)}.c-note{fill:var(--note)}
.c-grid{stroke:var(--line);stroke-dasharray:2 3}.c-base{stroke:var(--muted)}
.c-limit{stroke:var(--err);stroke-width:2;stroke-dasharray:5 4}
ul.tree{list-style:none;margin:0;padding:0}ul.tree ul.tree{padding-left:1.1rem;
border-left:2px solid var(--line);margin:.3rem 0 .3rem .3rem}
.node{margin:.2rem 0}.node>details>summary{cursor:pointer;padding:.3rem .4rem;border-radius:4px;
overflow-wrap:anywhere}.node>details>summary:hover{background:var(--soft)}
.node .meta{color:var(--muted);font-size:.9rem;white-space:normal}
.node .type{font-weight:600;color:var(--fg)}
.n-err>details>summary{background:var(--errbg)}
.body{padding:.2rem .4rem .4rem 1.4rem}
.kv{display:flex;flex-wrap:wrap;gap:.1rem 1.6rem;margin:.2rem 0 .4rem;font-size:.92rem}
.kv div{display:flex;gap:.4rem;min-width:0}.kv dt{color:var(--muted)}.kv dd{margin:0;
overflow-wrap:anywhere;min-width:0}
.sparkbox{display:flex;align-items:flex-end;gap:.6rem;flex-wrap:wrap;margin:.3rem 0}
svg.spark{width:240px;height:40px}.sparkbox .axis{color:var(--muted);font-size:.8rem}
.fl{margin:.4rem 0 .1rem;font-weight:600}.file-findings{margin:0;padding-left:1.2rem}
.group p{margin:.3rem 0;padding:.3rem .4rem;color:var(--muted);border:1px dashed var(--line);
border-radius:4px}
footer{margin-top:3rem;color:var(--muted);font-size:.9rem;border-top:1px solid var(--line)}
@media (max-width:600px){html{font-size:15px}svg.cols text{font-size:19px}
svg.cols text.c-alt{display:none}
svg.bars text{font-size:16px}.kind{display:none}.facts{grid-template-columns:1fr}
.facts dt{margin-top:.3rem}body{padding:0 .6rem 2rem}th,td{padding:.3rem .35rem}
.pages-reasons thead{display:none}.pages-reasons,.pages-reasons tbody,.pages-reasons tr,
.pages-reasons td{display:block;width:auto}.pages-reasons tr{border-bottom:1px solid var(--line);
padding:.4rem 0}.pages-reasons td{border:0;padding:.1rem 0;text-align:left}
.pages-reasons td.num::before{content:"Pages: ";color:var(--muted)}}
@media print{:root{LIGHT;--fg:#000;--link:#000;color-scheme:light}
html{font-size:11pt}.controls,.skip,nav{display:none!important}a{text-decoration:none}
.finding,figure,tr{break-inside:avoid}h2,h3{break-after:avoid}body{max-width:none}}
""".strip()
    .replace("\n", "")
    .replace("LIGHT", LIGHT_PALETTE)
)

SCRIPT = """
(function(){"use strict";var d=document,A=Array.prototype;
function each(s,f,r){A.forEach.call((r||d).querySelectorAll(s),f);}
function val(row,i){var c=row.cells[i];if(!c)return"";var v=c.getAttribute("data-v");
return v!==null?v:c.textContent.trim().toLowerCase();}
each("table.sortable",function(t){var hs=t.tHead.rows[0].cells;
A.forEach.call(hs,function(th,i){var b=d.createElement("button");b.type="button";b.className="sort";
while(th.firstChild)b.appendChild(th.firstChild);th.appendChild(b);
b.addEventListener("click",function(){var up=th.getAttribute("aria-sort")!=="ascending",
num=th.hasAttribute("data-num"),body=t.tBodies[0],rows=A.slice.call(body.rows);
A.forEach.call(hs,function(h){h.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",up?"ascending":"descending");
rows.sort(function(a,b){var x=val(a,i),y=val(b,i),r=num?(+x)-(+y):(x<y?-1:x>y?1:0);
return up?r:-r;});rows.forEach(function(r){body.appendChild(r);});});});});
each("input[data-filter]",function(q){var t=d.getElementById(q.getAttribute("data-filter"));
if(!t)return;var cards=q.getAttribute("data-cards"),none=d.getElementById(t.id+"-none");
q.addEventListener("input",function(){var s=q.value.trim().toLowerCase(),n=0,
miss=function(e){return!!s&&e.textContent.toLowerCase().indexOf(s)<0;};
A.forEach.call(t.tBodies[0].rows,function(r){r.hidden=miss(r);n+=r.hidden?0:1;});
if(cards)each(cards,function(c){c.hidden=miss(c.querySelector("h3")||c);});
if(none)none.hidden=n>0;});});
var root=d.getElementById("tree-root"),q=d.getElementById("tree-q"),
bad=d.getElementById("tree-bad");
if(root&&q&&bad){var items=A.slice.call(root.querySelectorAll("li.node,li.group")).reverse();
items.forEach(function(li){var u=li.querySelector(".url");
li._u=u?u.textContent.toLowerCase():"";});
var apply=function(){var s=q.value.trim().toLowerCase(),b=bad.checked;
items.forEach(function(li){li._k=false;});
items.forEach(function(li){var g=li.classList.contains("group"),
own=g?(!s&&(!b||li.classList.contains("broken"))):
((!s||li._u.indexOf(s)>=0)&&(!b||li.classList.contains("broken"))),show=own||li._k;
li.hidden=!show;if(show&&li.parentElement){var p=li.parentElement.closest("li.node");
if(p)p._k=true;}});};q.addEventListener("input",apply);bad.addEventListener("change",apply);
var all=function(o){each("details",function(x){x.open=o;},root);};
d.getElementById("tree-open").addEventListener("click",function(){all(true);});
d.getElementById("tree-close").addEventListener("click",function(){all(false);});}
each(".controls[hidden]",function(c){c.hidden=false;});
var shut=[];addEventListener("beforeprint",function(){
each("details:not([open])",function(x){shut.push(x);x.open=true;});});
addEventListener("afterprint",function(){shut.forEach(function(x){x.open=false;});shut=[];});
function reveal(){var t=null;try{t=location.hash&&
d.getElementById(decodeURIComponent(location.hash.slice(1)));}catch(e){}if(!t)return;if(t.classList.contains("node"))t.firstElementChild.open=true;
for(var p=t.parentElement;p;p=p.parentElement)if(p.tagName==="DETAILS")p.open=true;
t.scrollIntoView();}addEventListener("hashchange",reveal);reveal();})();
""".strip().replace("\n", "")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# Nothing but the page's own style sheet and script, allowed by their hashes: an injected element
# could neither run, nor style, nor load anything, and nothing leaves the page while it shows.
CSP = (
    f"default-src 'none'; script-src {_hash(SCRIPT)}; style-src {_hash(STYLE)}; "
    "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; "
    "frame-src 'none'; worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'"
)
