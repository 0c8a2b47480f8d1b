// tests/cli/html-layout.sh's driver for a standalone flame graph SVG,
// appended (in CDATA) after the graph's own script: a click on the
// get_page_from_freelist frame zooms (the frame fills the width), a search
// highlights its matches and gives the matched share, Reset restores the
// frame.  The verdict goes into <svg data-result="ok"> or "fail: ...".
(function () {
	var s = document.documentElement, bad = [];
	if (s.getAttribute('data-ready') !== 'ok')
		bad.push('the graph script did not run');
	var g = Array.prototype.filter.call(s.querySelectorAll('g.frame'), function (e) {
		return e.querySelector('title').textContent.indexOf('get_page_from_freelist (') === 0;
	})[0];
	if (!g) {
		bad.push('no get_page_from_freelist frame');
	} else {
		var w = +s.getAttribute('data-width') - 2 * +s.getAttribute('data-pad');
		var w0 = +g.querySelector('rect').getAttribute('width');
		g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
		var w1 = +g.querySelector('rect').getAttribute('width');
		if (s.getAttribute('data-zoom') !== 'get_page_from_freelist' || Math.abs(w1 - w) > 0.01)
			bad.push('zoom: ' + s.getAttribute('data-zoom') + ' ' + w0 + ' -> ' + w1);
		s.flameSearch('zone');
		var hits = +s.getAttribute('data-hits'), pct = +s.getAttribute('data-matched');
		if (!(hits > 0) || !(pct > 0 && pct <= 100) ||
		    s.querySelectorAll('rect[fill="rgb(230,0,230)"]').length !== hits)
			bad.push('search: ' + hits + ' hits, ' + pct + '%');
		if (s.querySelector('.matched').textContent.indexOf('Matched: ') !== 0)
			bad.push('no matched share shown');
		s.querySelector('.reset').dispatchEvent(new MouseEvent('click', {bubbles: true}));
		if (s.getAttribute('data-zoom') !== '' || +g.querySelector('rect').getAttribute('width') !== w0)
			bad.push('reset');
	}
	s.setAttribute('data-result', bad.length ? 'fail: ' + bad.join('; ') : 'ok');
})();
