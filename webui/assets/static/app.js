// git mem ui: the page follows the store. It polls the ref tips (a few
// bytes) and reloads when they move, unless the person is in the middle
// of typing: then it says so and lets them reload.
"use strict";
(function () {
	var body = document.body;
	var base = body.getAttribute("data-base");
	var seen = body.getAttribute("data-tips");
	if (!base || !seen) {
		return;
	}
	var banner = document.getElementById("changed");

	function typing() {
		var fields = document.querySelectorAll("main input:not([type=hidden]), main textarea");
		for (var i = 0; i < fields.length; i++) {
			var f = fields[i];
			if (f === document.activeElement && f.type !== "submit") {
				return true;
			}
			if (f.closest("form[method=post]") && f.value !== f.defaultValue) {
				return true;
			}
		}
		return false;
	}

	function poll() {
		fetch(base + "api/tips", { cache: "no-store", credentials: "same-origin" })
			.then(function (r) { return r.ok ? r.json() : null; })
			.then(function (j) {
				if (!j || !j.tips || j.tips === seen) {
					return;
				}
				if (typing()) {
					banner.hidden = false;
					return;
				}
				// a purged memory's page would 404 after the reload: that
				// is what the store holds now
				location.reload();
			})
			.catch(function () { /* the command stopped: keep the page as it is */ });
	}
	setInterval(poll, 2000);
})();
