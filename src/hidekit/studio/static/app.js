// hidekit studio: forms post to the server and swap the HTML fragment it returns (htmx-style).
// Every fragment is rendered (and escaped) by the server; errors arrive as one readable line.
"use strict";

function showError(html) {
  const box = document.getElementById("error");
  box.innerHTML = html || "";
  box.classList.toggle("shown", Boolean(html));
}

async function postForm(form, submitter) {
  // a second button may post elsewhere: data-post-to / data-target-to on the button
  const url = (submitter && submitter.dataset.postTo) || form.dataset.post;
  const targetName = (submitter && submitter.dataset.targetTo) || form.dataset.target;
  const target = document.querySelector(targetName);
  form.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(url, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Studio-Fragment": "1" },
      credentials: "same-origin",
    });
    const html = await response.text();
    if (!response.ok) {
      showError((response.headers.get("content-type") || "").startsWith("text/html") ? html : `<p class="error">${escapeText(html)}</p>`);
      return;
    }
    showError("");
    swapIn(target, targetName, html);
    if (response.headers.get("X-Studio-Refresh") === "risk") refreshRisk();
    document.dispatchEvent(new CustomEvent("studio:updated", { detail: url }));
  } catch (err) {
    showError(`<p class="error">The studio did not answer (${escapeText(String(err))}). Is it still running?</p>`);
  } finally {
    form.removeAttribute("aria-busy");
  }
}

function swapIn(target, targetName, html) {
  if (target) target.innerHTML = html;
  // a counter per swapped target: scripts (and the browser tests) wait on it
  const counter = `swaps${(targetName || "").replace(/\W/g, "")}`;
  document.body.dataset[counter] = String(Number(document.body.dataset[counter] || 0) + 1);
  if (target) pollTask(target, targetName);
}

// Long work answers with a progress bar carrying data-poll: ask again until the result comes.
const POLL_MS = 400;
function pollTask(target, targetName) {
  const bar = target.querySelector("[data-poll]");
  if (!bar) return;
  setTimeout(async () => {
    if (!target.contains(bar)) return; // replaced meanwhile
    try {
      const response = await fetch(bar.dataset.poll, {
        headers: { "X-Studio-Fragment": "1" },
        credentials: "same-origin",
      });
      const html = await response.text();
      if (!response.ok) {
        bar.remove();
        showError(html);
        return;
      }
      swapIn(target, targetName, html);
    } catch (err) {
      showError(`<p class="error">The studio did not answer (${escapeText(String(err))}). Is it still running?</p>`);
    }
  }, POLL_MS);
}

function escapeText(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

function refreshRisk() {
  const roles = document.getElementById("roles");
  if (roles) postForm(roles);
}

let liveTimer = null;
document.addEventListener("change", (event) => {
  const form = event.target.closest("form[data-live]");
  if (!form) return;
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => postForm(form), 120);
});

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-post]");
  if (!form) return;
  event.preventDefault();
  postForm(form, event.submitter);
});

// a select that opens another page on change (the hierarchy editor's variable)
document.addEventListener("change", (event) => {
  const select = event.target.closest("select[data-autosubmit]");
  if (select && select.form) select.form.submit();
});

// the hierarchy editor: the values ticked go into the group named
document.addEventListener("click", (event) => {
  if (!event.target.closest("#group-ticked")) return;
  const name = document.getElementById("group-name").value.trim();
  if (!name) {
    showError('<p class="error">Type a group name first.</p>');
    return;
  }
  document.querySelectorAll("#hier-form tr").forEach((row) => {
    const pick = row.querySelector("input.pick");
    if (pick && pick.checked) {
      row.querySelector("input[name='g']").value = name;
      pick.checked = false;
    }
  });
});

document.addEventListener("DOMContentLoaded", () => {
  const use = document.getElementById("step-use");
  const params = document.getElementById("step-params");
  if (use && params) {
    use.addEventListener("change", () => {
      // presets follow the roles as they stand: the risk panel carries them, redrawn on each change
      const data = document.getElementById("step-presets");
      const presets = data ? JSON.parse(data.textContent) : {};
      params.value = presets[use.value] || "";
    });
  }
});

// --- notes: review detected PHI with the mouse or the keyboard --------------------------------
function noteMarks() {
  return Array.from(document.querySelectorAll("#note mark"));
}

function selectMark(mark) {
  noteMarks().forEach((m) => m.classList.remove("selected"));
  if (!mark) return;
  mark.classList.add("selected");
  mark.focus({ preventScroll: false });
  const form = document.getElementById("span-form");
  form.elements.id.value = mark.dataset.id;
  const label = form.elements.label;
  if (Array.from(label.options).some((o) => o.value === mark.dataset.label)) label.value = mark.dataset.label;
}

function selectedMark() {
  return document.querySelector("#note mark.selected");
}

// Offsets of the mouse selection in code points of the note's text (Python counts code points).
function selectionOffsets() {
  const note = document.getElementById("note");
  const sel = window.getSelection();
  if (!note || !sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
  const range = sel.getRangeAt(0);
  if (!note.contains(range.startContainer) || !note.contains(range.endContainer)) return null;
  const before = document.createRange();
  before.setStart(note, 0);
  before.setEnd(range.startContainer, range.startOffset);
  const start = [...before.toString()].length;
  const end = start + [...range.toString()].length;
  return { start, end };
}

function spanAction(action) {
  const form = document.getElementById("span-form");
  if (!form) return;
  form.elements.action.value = action;
  if (action === "add") {
    const offsets = selectionOffsets();
    if (!offsets) {
      showError('<p class="error">Select the text to tag in the note first.</p>');
      return;
    }
    form.elements.start.value = offsets.start;
    form.elements.end.value = offsets.end;
  } else if (!selectedMark()) {
    showError('<p class="error">Click a highlighted span first (or press n).</p>');
    return;
  }
  postForm(form);
}

document.addEventListener("click", (event) => {
  const mark = event.target.closest("#note mark");
  if (mark) {
    selectMark(mark);
    return;
  }
  const button = event.target.closest("#span-form button[data-act]");
  if (button) spanAction(button.dataset.act);
});

document.addEventListener("keydown", (event) => {
  if (!document.getElementById("note")) return;
  if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  const marks = noteMarks();
  const current = marks.indexOf(selectedMark());
  const keys = {
    n: () => selectMark(marks[Math.min(current + 1, marks.length - 1)]),
    p: () => selectMark(marks[Math.max(current - 1, 0)]),
    a: () => spanAction("accept"),
    r: () => spanAction("reject"),
    Delete: () => spanAction("reject"),
    l: () => spanAction("relabel"),
    t: () => spanAction("add"),
  };
  if (keys[event.key]) {
    event.preventDefault();
    keys[event.key]();
  }
});

// after a correction the note is redrawn: keep the same span selected
document.addEventListener("studio:updated", (event) => {
  if (event.detail !== "/api/notes/span") return;
  const note = document.getElementById("note");
  const id = note ? note.dataset.selected : "";
  if (id) selectMark(document.querySelector(`#note mark[data-id="${CSS.escape(id)}"]`));
});

// the hierarchy editor: drag a value onto another and it joins that value's group
let dragged = null;
document.addEventListener("dragstart", (event) => {
  dragged = event.target.closest && event.target.closest("tr.value-row");
  if (dragged) event.dataTransfer.setData("text/plain", dragged.dataset.value);
});
document.addEventListener("dragover", (event) => {
  if (dragged && event.target.closest("tr.value-row")) event.preventDefault();
});
document.addEventListener("drop", (event) => {
  const onto = event.target.closest("tr.value-row");
  if (!dragged || !onto || onto === dragged) return;
  event.preventDefault();
  const group = onto.querySelector("input[name='g']");
  if (!group.value.trim()) group.value = onto.dataset.value;
  dragged.querySelector("input[name='g']").value = group.value;
  dragged = null;
});
