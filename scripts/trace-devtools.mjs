// Opens a vsched trace in the Performance panel of Chromium's own DevTools (a trace-event
// viewer shipped with the browser, so no network is needed) and saves a screenshot.
// Driven over the DevTools protocol of a running headless Chromium; see trace-devtools.sh.
// usage: node trace-devtools.mjs PORT TRACE.json OUT.png FROM_MS TO_MS
import { writeFileSync } from 'node:fs';

const [port, trace, out, fromMs, toMs] = process.argv.slice(2);
const W = 1600, H = 1250;
const sleep = ms => new Promise(r => setTimeout(r, ms));

const tabs = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
const ws = new WebSocket(tabs.find(t => t.type === 'page').webSocketDebuggerUrl);
let seq = 0;
const pending = new Map();
ws.onmessage = e => {
	const m = JSON.parse(e.data);
	pending.get(m.id)?.(m);
	pending.delete(m.id);
};
await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
const send = (method, params = {}) => new Promise((ok, fail) => {
	pending.set(++seq, m => m.error ? fail(new Error(`${method}: ${m.error.message}`))
		: ok(m.result));
	ws.send(JSON.stringify({ id: seq, method, params }));
});
const run = async expr => {
	const r = await send('Runtime.evaluate', { expression: `(async () => { ${expr} })()`,
		awaitPromise: true, returnByValue: true });
	if (r.exceptionDetails)
		throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
	return r.result.value;
};
const until = async (what, expr, ms = 30000) => {
	for (const end = Date.now() + ms; Date.now() < end; await sleep(250))
		if (await run(expr).catch(() => false))
			return;
	throw new Error(`timed out waiting for ${what}`);
};

await send('Emulation.setDeviceMetricsOverride', { width: W, height: H, deviceScaleFactor: 1,
	mobile: false });
// trace_app.html is DevTools' front end for a trace file without a target to inspect.
await send('Page.navigate', { url: `http://127.0.0.1:${port}/devtools/trace_app.html` });
const imports = `
	const UI = await import('/devtools/ui/legacy/legacy.js');
	const TL = await import('/devtools/panels/timeline/timeline.js');
	const TB = await import('/devtools/services/trace_bounds/trace_bounds.js');`;
await until('DevTools to start', `${imports} return !!UI.ViewManager.ViewManager.instance();`);

// A new profile shows the flame chart's shortcut tips once; mark them as seen.
await run(`
	const Common = await import('/devtools/core/common/common.js');
	Common.Settings.Settings.instance()
		.createSetting('timeline.user-had-shortcuts-dialog-opened-once', false).set(true);`);
// The file goes in through a file input, as the panel's own "Load profile" button would.
await run(`${imports}
	await UI.ViewManager.ViewManager.instance().showView('timeline');
	const i = document.createElement('input');
	i.type = 'file'; i.id = 'vsched-trace'; i.hidden = true;
	document.body.append(i);`);
const { root } = await send('DOM.getDocument');
const { nodeId } = await send('DOM.querySelector', { nodeId: root.nodeId,
	selector: '#vsched-trace' });
await send('DOM.setFileInputFiles', { files: [trace], nodeId });
await run(`${imports}
	const f = document.getElementById('vsched-trace').files[0];
	await TL.TimelinePanel.TimelinePanel.instance().loadFromFile(f);`);
const chart = `${imports}
	const chart = TL.TimelinePanel.TimelinePanel.instance().getFlameChart().getMainFlameChart();`;
await until('the trace to load', `${chart} return chart.timelineData()?.groups?.length > 0;`);
await sleep(1000);

await run(`${chart}
	const groups = chart.timelineData().groups;
	for (let i = 0; i < groups.length; i++)
		chart.expandGroup(i, true);
	TB.TraceBounds.BoundsManager.instance().setTimelineVisibleWindow(
		{ min: ${fromMs * 1000}, max: ${toMs * 1000}, range: ${(toMs - fromMs) * 1000} },
		{ shouldAnimate: false });`);
await sleep(1500);
// Close the "Debugging connection was closed" notice (there is no target to debug) and the
// annotations sidebar.
await run(`
	const all = (n, acc = []) => {
		for (const e of n.querySelectorAll('*')) {
			acc.push(e);
			if (e.shadowRoot) all(e.shadowRoot, acc);
		}
		return acc;
	};
	for (const e of all(document)) {
		const label = e.getAttribute('aria-label') ?? e.getAttribute('title') ?? '';
		if (e.tagName === 'BUTTON' && /^(close|hide sidebar)$/i.test(label) &&
				e.checkVisibility())
			e.click();
	}`);
await sleep(500);
// Down to the last track: the details pane below stays empty for these events.
const height = await run(`${chart}
	return Math.ceil(chart.canvasBoundingClientRect().top + chart.totalContentHeight() + 8);`);
const { data } = await send('Page.captureScreenshot', { format: 'png',
	clip: { x: 0, y: 0, width: W, height: Math.min(height, H), scale: 1 } });
writeFileSync(out, Buffer.from(data, 'base64'));
ws.close();
