/* SPDX-License-Identifier: MIT */
/*
 * The page's inline style and script: one file, nothing loaded from
 * anywhere.
 */
#include "page.h"

const char html_style[] =
    "body{font:15px/1.45 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;"
    "max-width:1000px;padding:1em 1.5em}\n"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .5em;"
    "border-bottom:1px solid #767676}\n"
    "dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.5em 0}"
    "dl.run dt{font-weight:600}dl.run dd{margin:0}\n"
    "table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}"
    "th,td{border:1px solid #767676;padding:.2em .5em;text-align:right}"
    "th:first-child,td.name{text-align:left}thead th{background:#eee}\n"
    "tr.scenario td{font-weight:600}tr.step td.name{padding-left:1.6em}"
    "tr.group td.name{font-style:italic}tr.depth1 td.name{padding-left:3.2em}"
    "tr.depth2 td.name{padding-left:4.8em}tr.depth3 td.name,tr.depth4 td.name{padding-left:6.4em}"
    "tr.failed td{color:#b00}"
    ".pass{color:#1b6e20;font-weight:700}"
    ".fail{color:#b3261e;font-weight:700}\n"
    ".banner{border:2px solid #8a4b00;background:#fdf0e0;padding:.5em 1em;margin:1em 0}\n"
    ".note,.generated{color:#4d4d4d;font-size:.9em}.empty{color:#4d4d4d;font-style:italic}\n"
    "figure.chart{margin:1em 0;break-inside:avoid}figcaption{font-weight:600}\n"
    "svg.plot{width:100%;height:auto;font-size:12px}svg.plot text{fill:#1a1a1a}\n"
    ".grid{stroke:#d9d9d9}.tick{stroke:#1a1a1a}.frame{fill:none;stroke:#1a1a1a}"
    ".series{stroke-width:2}.ytick{text-anchor:end}.xtick,.xlabel,.ylabel{text-anchor:middle}"
    ".wall{fill:#4d4d4d}.sat{fill:#e8a33d;fill-opacity:.28}\n"
    "ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.3em 1em;padding:0;margin:.2em 0}"
    "ul.legend button{font:inherit;background:none;border:1px solid #bbb;border-radius:3px;"
    "cursor:pointer;display:flex;align-items:center;gap:.3em}"
    "ul.legend button.off{opacity:.45;text-decoration:line-through}.off{display:none}\n"
    ".readout{position:absolute;display:none;white-space:pre;background:#fff;"
    "border:1px solid #1a1a1a;padding:.3em .5em;font-size:.85em;pointer-events:none}\n"
    /* Zoom: strokes keep their width when the plot stretches; markers would not keep their
     * shape, so they are hidden while zoomed. */
    ".zoom path{vector-effect:non-scaling-stroke}.zoomed .mk{display:none}"
    ".sel{fill:#1f4e99;fill-opacity:.15}svg.plot[data-t]{cursor:crosshair;user-select:none}"
    "#unzoom{font:inherit;position:sticky;top:0}.step-id{color:#4d4d4d}\n"
    "@media print{body{max-width:none}ul.legend button{border:none}.readout{display:none}}\n";

/*
 * What the page's script does; the page reads completely without it.
 *
 * - A legend button hides and shows its series.
 * - Hovering a chart shows the values of the nearest point, from the svg's
 *   data-* attributes.
 * - Dragging across a chart over time zooms every chart over time to that
 *   stretch: the plot's inner svg gets a narrower viewBox and the time axis
 *   is labelled again; a double click or the "whole run" button undoes it.
 *   data-t holds a chart's time axis (its first and last second), data-wall
 *   the wall clock at second 0 (ms since 1970, UTC), 0 when none.
 *
 * The class "js" on <html> marks that the script ran to its end (the
 * browser test reads it).  The plot area's place in the viewBox (72, 12,
 * 800 × 216) is svg.c's.
 */
const char html_script[] =
    "document.querySelectorAll('ul.legend button').forEach(function(b){"
    "b.addEventListener('click',function(){b.classList.toggle('off');"
    "document.querySelectorAll('svg.plot .'+b.dataset.series).forEach(function(e){"
    "e.classList.toggle('off');});});});\n"
    "(function(){var L=72,W=800,z=null,drag=null,"
    "r=document.createElement('div'),un=document.getElementById('unzoom'),"
    "plots=[].slice.call(document.querySelectorAll('svg.plot[data-t]'));"
    "r.className='readout';document.body.appendChild(r);\n"
    "function span(s){return s.dataset.t.split(' ').map(Number);}\n"
    /* The second under viewBox x, and the unzoomed x of a second. */
    "function sec(s,x){var a=z||span(s);return a[0]+(x-L)/W*(a[1]-a[0]);}\n"
    "function place(s,t){var a=span(s);return L+(t-a[0])/(a[1]-a[0])*W;}\n"
    "function at(s,e){var p=s.createSVGPoint(),m=s.getScreenCTM();if(!m)return null;"
    "p.x=e.clientX;p.y=e.clientY;return p.matrixTransform(m.inverse()).x;}\n"
    "function clamp(x){return Math.max(L,Math.min(L+W,x));}\n"
    /* Time ticks for the zoomed stretch, on the 1-2-5 grid svg.c uses. */
    "function ticks(s){var g=s.querySelector('g.xaxis');"
    "if(g.dataset.whole===undefined)g.dataset.whole=g.innerHTML;"
    "if(!z){g.innerHTML=g.dataset.whole;return;}"
    "var d=(z[1]-z[0])/8,p=Math.pow(10,Math.floor(Math.log10(d))),f=d/p,"
    "st=(f<=1?1:f<=2?2:f<=5?5:10)*p,dec=Math.max(0,-Math.floor(Math.log10(st)+1e-9)),"
    "w=+s.dataset.wall,h='';"
    "for(var k=0,v=Math.ceil(z[0]/st-1e-9)*st;v<=z[1]+st*1e-9&&k<20;v+=st,k++){"
    "var x=(L+(v-z[0])/(z[1]-z[0])*W).toFixed(1);"
    "h+='<line class=\"tick\" x1=\"'+x+'\" x2=\"'+x+'\" y1=\"228\" y2=\"233\"/>"
    "<text class=\"xtick\" x=\"'+x+'\" y=\"245\">'+v.toFixed(dec)+(w?'<tspan class=\"wall\" x=\"'"
    "+x+'\" dy=\"12\">'+new Date(w+Math.floor(v)*1000).toISOString().substr(11,8)+'</tspan>':'')"
    "+'</text>';}g.innerHTML=h;}\n"
    "function apply(){document.body.classList.toggle('zoomed',!!z);if(un)un.hidden=!z;"
    "plots.forEach(function(s){var i=s.querySelector('svg.zoom'),"
    "a=z?place(s,z[0]):L,b=z?place(s,z[1]):L+W;"
    "i.setAttribute('viewBox',(z?a.toFixed(1)+' 12 '+(b-a).toFixed(1):L+' 12 '+W)+' 216');"
    "ticks(s);});}\n"
    "if(un)un.addEventListener('click',function(){z=null;apply();});\n"
    /* A drag that ends outside its chart selects nothing. */
    "document.addEventListener('mouseup',function(){if(!drag)return;"
    "if(drag.sel.parentNode)drag.sel.parentNode.removeChild(drag.sel);drag=null;});\n"
    "document.querySelectorAll('svg.plot[data-px]').forEach(function(s){"
    "var px=s.dataset.px.split(' ').map(Number),xs=s.dataset.x.split(' '),"
    "names=s.dataset.names.split('|'),label=s.dataset.xlabel,time=!!s.dataset.t,"
    "sel=document.createElementNS(s.namespaceURI,'rect');"
    "sel.setAttribute('class','sel');sel.setAttribute('y',12);sel.setAttribute('height',216);\n"
    "s.addEventListener('mousemove',function(e){var x=at(s,e);if(x===null)return;"
    "if(drag&&drag.s===s){var a=clamp(Math.min(drag.x,x)),b=clamp(Math.max(drag.x,x));"
    "sel.setAttribute('x',a);sel.setAttribute('width',b-a);"
    "if(!sel.parentNode)s.appendChild(sel);return;}"
    "var p=time?place(s,sec(s,x)):x,i=0;"
    "for(var k=1;k<px.length;k++)if(Math.abs(px[k]-p)<Math.abs(px[i]-p))i=k;"
    "var t=label+' '+xs[i];names.forEach(function(n,j){"
    "t+='\\n'+n+': '+s.dataset['v'+j].split(' ')[i];});"
    "r.textContent=t;r.style.left=(e.pageX+14)+'px';r.style.top=(e.pageY+14)+'px';"
    "r.style.display='block';});\n"
    "s.addEventListener('mouseleave',function(){r.style.display='none';});\n"
    "if(!time)return;\n"
    "s.addEventListener('mousedown',function(e){var x=at(s,e);"
    "if(x===null||x<L||x>L+W)return;drag={s:s,x:x,sel:sel};e.preventDefault();});\n"
    "s.addEventListener('mouseup',function(e){if(!drag||drag.s!==s)return;"
    "var x=at(s,e),a=clamp(Math.min(drag.x,x)),b=clamp(Math.max(drag.x,x));drag=null;"
    "if(sel.parentNode)sel.parentNode.removeChild(sel);"
    "if(b-a>4){z=[sec(s,a),sec(s,b)];apply();}});\n"
    "s.addEventListener('dblclick',function(){z=null;apply();});});})();\n"
    "document.documentElement.classList.add('js');\n";
