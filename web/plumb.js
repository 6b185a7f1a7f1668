// The control page of `plumb serve`: plain JavaScript over the API the page is served with.
'use strict';
const $ = (selector) => document.querySelector(selector);

/** fetch, and an Error worded as the API words it ({"error": ...}) for anything but 2xx. */
async function api(method, path, options = {}) {
  const response = await fetch(path, { method, credentials: 'same-origin', ...options });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return response;
}

function showError(error) { $('#error').textContent = error ? error.message : ''; }

function bytes(n) {
  if (n == null) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

// --- Live view by WHEP ---------------------------------------------------------------
let session = null;
let peer = null;

async function startVideo() {
  const pc = new RTCPeerConnection();
  peer = pc;
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.ontrack = (event) => { $('#live').srcObject = event.streams[0] || new MediaStream([event.track]); };
  pc.onconnectionstatechange = () => {
    $('#video-state').textContent = pc.connectionState;
    if (pc.connectionState === 'failed') setTimeout(restartVideo, 2000);
  };
  await pc.setLocalDescription(await pc.createOffer());
  // No trickle: the offer goes with every candidate.
  await new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') resolve(); };
    setTimeout(resolve, 3000);
  });
  const response = await api('POST', '/whep', {
    headers: { 'Content-Type': 'application/sdp' }, body: pc.localDescription.sdp,
  });
  session = response.headers.get('Location');
  await pc.setRemoteDescription({ type: 'answer', sdp: await response.text() });
}

function stopVideo() {
  if (session) fetch(session, { method: 'DELETE', credentials: 'same-origin', keepalive: true });
  session = null;
  if (peer) peer.close();
  peer = null;
}

function restartVideo() {
  stopVideo();
  startVideo().catch(showError);
}

/** The receiver's jitter-buffer delay: what the page adds to the network's latency. */
async function showLatency() {
  if (!peer) return;
  const stats = await peer.getStats();
  stats.forEach((report) => {
    if (report.type === 'inbound-rtp' && report.kind === 'video' && report.jitterBufferEmittedCount) {
      const ms = 1000 * report.jitterBufferDelay / report.jitterBufferEmittedCount;
      $('#latency').textContent = `buffer ${ms.toFixed(0)} ms, ${report.framesPerSecond || 0} fps`;
    }
  });
}

// --- Buttons ------------------------------------------------------------------------
let recordingSince = null;

$('#still').onclick = async () => {
  try {
    showError(null);
    const blob = await (await api('POST', '/photo')).blob();
    const url = URL.createObjectURL(blob);
    $('#still-image').src = url;
    $('#still-link').href = url;
    $('#last-still').hidden = false;
  } catch (error) { showError(error); }
};

$('#record').onclick = async () => {
  try {
    showError(null);
    await api('POST', recordingSince ? '/recording/stop' : '/recording/start');
    await refreshStatus();
    await refreshRecordings();
  } catch (error) { showError(error); }
};

$('#clip').onclick = async () => {
  const button = $('#clip');
  try {
    showError(null);
    button.disabled = true;
    const blob = await (await api('POST', '/clip?seconds=5')).blob();
    $('#clip-link').href = URL.createObjectURL(blob);
    $('#clip-result').hidden = false;
  } catch (error) { showError(error); } finally { button.disabled = false; }
};

function showRecording(state) {
  const on = state === 'recording';
  if (on && !recordingSince) recordingSince = Date.now();
  if (!on) recordingSince = null;
  $('#record').textContent = on ? 'Stop recording' : 'Start recording';
  $('#record').classList.toggle('on', on);
  $('#elapsed').textContent = on ? '' : (state === 'idle' ? '' : state);
}

setInterval(() => {
  if (recordingSince) {
    const s = Math.floor((Date.now() - recordingSince) / 1000);
    $('#elapsed').textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }
}, 500);

// --- Status, recordings, events -------------------------------------------------------
async function refreshStatus() {
  const status = await (await api('GET', '/status')).json();
  const camera = $('#camera');
  camera.textContent = `${status.camera || 'camera'}: ${status.state}${status.problem ? ' — ' + status.problem : ''}`;
  camera.className = `badge ${status.state}`;
  $('#disk').textContent = `${bytes(status.disk_free_bytes)} free`;
  $('#angle').textContent = status.orientation ?? '–';
  if (status.webrtc) $('#viewers').textContent = `${status.webrtc.viewers} viewer${status.webrtc.viewers === 1 ? '' : 's'}`;
  showRecording(status.recording.state);
}

async function refreshRecordings() {
  const list = await (await api('GET', '/recordings')).json();
  const body = $('#recordings');
  body.replaceChildren(...list.map((file) => {
    const row = document.createElement('tr');
    const link = document.createElement('a');
    link.href = `/recordings/${encodeURIComponent(file.name)}`;
    link.download = file.name;
    link.textContent = file.name;
    const thumbnail = document.createElement('img');
    thumbnail.className = 'thumbnail';
    thumbnail.loading = 'lazy';
    thumbnail.alt = '';
    thumbnail.src = `/recordings/${encodeURIComponent(file.name)}/thumbnail`;
    const cells = [thumbnail, link, file.kind, new Date(file.modified).toLocaleString(), bytes(file.bytes)];
    for (const value of cells) {
      const cell = document.createElement('td');
      cell.append(value);
      row.append(cell);
    }
    return row;
  }));
}

function listen() {
  const events = new EventSource('/events', { withCredentials: true });
  events.addEventListener('orientation', (event) => { $('#angle').textContent = JSON.parse(event.data).angle; });
  for (const kind of ['recording-started', 'recording-stopped', 'photo', 'event', 'deleted']) {
    events.addEventListener(kind, () => { refreshStatus().catch(showError); refreshRecordings().catch(showError); });
  }
  for (const kind of ['controls', 'camera-switched']) {
    events.addEventListener(kind, () => { refreshControls().catch(showError); });
  }
  events.addEventListener('motion', (event) => motionChanged(JSON.parse(event.data)));
  events.addEventListener('error', (event) => { if (event.data) showError(new Error(JSON.parse(event.data).message)); });
}

// --- Camera controls: sliders, menus and switches over GET/PATCH /controls ----------------
const settable = ['int', 'int64', 'bool', 'menu', 'intmenu'];

async function refreshControls() {
  const listing = await (await api('GET', '/controls')).json();
  $('#controls-reason').textContent = listing.reason || (listing.status && listing.status.problem) || '';
  $('#control-list').replaceChildren(...listing.controls.filter((c) => settable.includes(c.type)).map(controlRow));
}

/** One control: a slider for a number, a menu for a menu, a switch for a boolean. */
function controlRow(control) {
  const row = document.createElement('label');
  row.className = 'control';
  row.dataset.name = control.name;
  const title = document.createElement('span');
  title.textContent = control.plain_name ? `${control.label} (${control.plain_name})` : control.label;
  row.append(title);
  let input;
  if (control.type === 'bool') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = control.value === 1;
    input.onchange = () => setControl(control.name, input.checked);
    row.append(input);
  } else if (control.type === 'menu' || control.type === 'intmenu') {
    // A menu is set by its entry's index, an integer menu by the entry's value.
    input = document.createElement('select');
    for (const entry of control.menu || []) {
      const option = new Option(entry.name ?? String(entry.value), control.type === 'menu' ? entry.index : entry.value);
      option.selected = entry.index === control.value;
      input.add(option);
    }
    input.onchange = () => setControl(control.name, Number(input.value));
    row.append(input);
  } else {
    input = document.createElement('input');
    input.type = 'range';
    input.min = control.minimum;
    input.max = control.maximum;
    input.step = Math.max(1, control.step);
    input.value = control.value ?? control.default;
    const shown = document.createElement('output');
    shown.textContent = input.value;
    input.oninput = () => { shown.textContent = input.value; };
    input.onchange = () => setControl(control.name, Number(input.value));
    row.append(input, shown);
  }
  if (control.inactive_reason) {
    row.classList.add('inactive');
    input.disabled = true;
    const why = document.createElement('span');
    why.className = 'why';
    why.textContent = control.inactive_reason;
    row.append(why);
  }
  return row;
}

async function setControl(name, value) {
  try {
    showError(null);
    await api('PATCH', '/controls', { body: JSON.stringify({ [name]: value }), headers: { 'Content-Type': 'application/json' } });
  } catch (error) { showError(error); }
  // What the driver made of it (and which controls a mode change freed or greyed).
  refreshControls().catch(showError);
}

// --- Motion: its state and boxes over the live view, a mask drawn on it (GET/PATCH /motion) ---
const svgNS = 'http://www.w3.org/2000/svg';
let motionMask = [];

/** The overlay over the picture itself, not the letterbox around it (object-fit: contain). */
function placeOverlay() {
  const video = $('#live');
  const overlay = $('#overlay');
  const width = video.clientWidth;
  const height = video.clientHeight;
  const scale = Math.min(width / (video.videoWidth || 16), height / (video.videoHeight || 9));
  const shown = [(video.videoWidth || 16) * scale, (video.videoHeight || 9) * scale];
  overlay.style.left = `${video.offsetLeft + (width - shown[0]) / 2}px`;
  overlay.style.top = `${video.offsetTop + (height - shown[1]) / 2}px`;
  overlay.style.width = `${shown[0]}px`;
  overlay.style.height = `${shown[1]}px`;
}

/** Rectangles [x, y, width, height] (normalised) as SVG rects of one class in one group. */
function drawRects(group, list, className) {
  $(group).replaceChildren(...list.map((rect) => {
    const shape = document.createElementNS(svgNS, 'rect');
    shape.setAttribute('class', className);
    ['x', 'y', 'width', 'height'].forEach((key, i) => shape.setAttribute(key, rect[i]));
    return shape;
  }));
}

function showMotionState(state) {
  $('#motion-state').textContent = state;
  $('#motion-state').className = `badge ${state}`;
}

function showBoxes(boxes) { drawRects('#motion-boxes', boxes.map((b) => [b.x, b.y, b.width, b.height]), 'motion-box'); }

function showMask(settings) {
  motionMask = settings.mask;
  drawRects('#mask-rects', motionMask, 'mask-rect');
  $('#mask-line').textContent = `to keep it: [motion] ${settings.config_line}`;
}

async function refreshMotion() {
  const settings = await (await api('GET', '/motion')).json();
  $('#overlay').toggleAttribute('hidden', !settings.enabled);
  for (const button of ['#mask-draw', '#mask-clear']) $(button).disabled = !settings.enabled;
  if (!settings.enabled) {
    showMotionState('off');
    $('#motion-facts').textContent = 'set [motion] enabled = true in the config to watch for motion';
    return;
  }
  showMotionState(settings.state);
  $('#motion-facts').textContent = `sensitivity ${settings.sensitivity}, min-area ${settings.min_area}, ${settings.rate} frames/s`;
  showBoxes(settings.state === 'motion' && settings.last_motion ? settings.last_motion.boxes : []);
  showMask(settings);
  placeOverlay();
}

/** A `motion` event: a start's boxes stay over the view until the end. */
function motionChanged(record) {
  showMotionState(record.motion === 'started' ? 'motion' : 'idle');
  showBoxes(record.motion === 'started' ? record.boxes : []);
}

async function setMask(mask) {
  try {
    showError(null);
    const response = await api('PATCH', '/motion', {
      body: JSON.stringify({ mask }), headers: { 'Content-Type': 'application/json' },
    });
    showMask(await response.json());
  } catch (error) { showError(error); }
}

// While "Draw mask" is on, each drag over the picture adds a rectangle to the mask.
let dragFrom = null;

function pointOnPicture(event) {
  const box = $('#overlay').getBoundingClientRect();
  const clamp = (v) => Math.min(Math.max(v, 0), 1);
  return [clamp((event.clientX - box.left) / box.width), clamp((event.clientY - box.top) / box.height)];
}

/** The rectangle between two points, rounded to 0.001 and kept inside the picture. */
function rectBetween(from, to) {
  const round = (v) => Math.round(v * 1000) / 1000;
  const x = round(Math.min(from[0], to[0]));
  const y = round(Math.min(from[1], to[1]));
  return [x, y, Math.min(round(Math.abs(to[0] - from[0])), 1 - x), Math.min(round(Math.abs(to[1] - from[1])), 1 - y)];
}

function showDrawing(rect) {
  const shape = $('#mask-drawing');
  shape.toggleAttribute('hidden', !rect);
  if (rect) ['x', 'y', 'width', 'height'].forEach((key, i) => shape.setAttribute(key, rect[i]));
}

$('#overlay').addEventListener('pointerdown', (event) => {
  dragFrom = pointOnPicture(event);
  $('#overlay').setPointerCapture(event.pointerId);
});
$('#overlay').addEventListener('pointermove', (event) => {
  if (dragFrom) showDrawing(rectBetween(dragFrom, pointOnPicture(event)));
});
$('#overlay').addEventListener('pointerup', (event) => {
  if (!dragFrom) return;
  const rect = rectBetween(dragFrom, pointOnPicture(event));
  dragFrom = null;
  showDrawing(null);
  if (rect[2] >= 0.01 && rect[3] >= 0.01) setMask([...motionMask, rect]);
});

$('#mask-draw').onclick = () => {
  const on = $('#mask-draw').getAttribute('aria-pressed') !== 'true';
  $('#mask-draw').setAttribute('aria-pressed', String(on));
  $('#overlay').classList.toggle('drawing', on);
};
$('#mask-clear').onclick = () => setMask([]);

$('#live').addEventListener('loadedmetadata', placeOverlay);
$('#live').addEventListener('resize', placeOverlay);
new ResizeObserver(placeOverlay).observe($('#live'));

// --- Start, after the token when the API asks for one -----------------------------------
// The token is sent once, in a header, for an HttpOnly session cookie; the page keeps no copy.
$('#login').onsubmit = async (event) => {
  event.preventDefault();
  try {
    await api('POST', '/session', { headers: { Authorization: `Bearer ${$('#token').value}` } });
    $('#token').value = '';
    $('#login').hidden = true;
    start();
  } catch (error) { showError(error); }
};

let started = false;
async function start() {
  try {
    await refreshStatus();
  } catch (error) {
    if (error.status === 401) { $('#login').hidden = false; return; }
    showError(error);
  }
  if (started) return;
  started = true;
  startVideo().catch(showError);
  listen();
  refreshRecordings().catch(showError);
  refreshControls().catch(showError);
  refreshMotion().catch(showError);
  setInterval(() => { refreshStatus().catch(showError); showLatency(); }, 2000);
}

window.addEventListener('pagehide', stopVideo);
start();
