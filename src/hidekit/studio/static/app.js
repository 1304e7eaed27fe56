// hidekit studio: forms post to the server and swap the HTML fragment it returns (htmx-style).
// Every fragment is rendered (and escaped) by the server; errors arrive as one readable line.
"use strict";

function showError(html) {
  const box = document.getElementById("error");
  box.innerHTML = html || "";
  box.classList.toggle("shown", Boolean(html));
}

async function postForm(form) {
  const target = document.querySelector(form.dataset.target);
  form.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(form.dataset.post, {
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
    if (target) target.innerHTML = html;
    // a counter per swapped target: scripts (and the browser tests) wait on it
    const counter = `swaps${(form.dataset.target || "").replace(/\W/g, "")}`;
    document.body.dataset[counter] = String(Number(document.body.dataset[counter] || 0) + 1);
    if (response.headers.get("X-Studio-Refresh") === "risk") refreshRisk();
    document.dispatchEvent(new CustomEvent("studio:updated", { detail: form.dataset.post }));
  } catch (err) {
    showError(`<p class="error">The studio did not answer (${escapeText(String(err))}). Is it still running?</p>`);
  } finally {
    form.removeAttribute("aria-busy");
  }
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
  postForm(form);
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
