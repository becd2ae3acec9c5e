// The live round: count down to expiry and, once the round is no longer open,
// reload so the server renders its calls; never while a visitor is writing a
// call in the form (it works without this script). The page reads fully without it.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var clock = document.getElementById("countdown");
  if (!live || !clock) { return; }
  var round = live.getAttribute("data-round");
  var ends = Date.now() + 1000 * Number(clock.getAttribute("data-remaining"));
  function tick() {
    var left = Math.max(0, Math.round((ends - Date.now()) / 1000));
    var s = left % 60;
    clock.textContent = Math.floor(left / 60) + ":" + (s < 10 ? "0" : "") + s;
  }
  function writing() {
    var name = document.getElementById("visitor");
    return Boolean(name && (name.value || document.activeElement === name));
  }
  function poll() {
    if (writing()) { return; }
    fetch("/api/v1/direction/rounds/current", { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        if (body && (body.round !== round || body.status !== "open")) { window.location.reload(); }
      })
      .catch(function () { /* keep counting; the next poll tries again */ });
  }
  tick();
  setInterval(tick, 1000);
  setInterval(poll, 1000);
}());
