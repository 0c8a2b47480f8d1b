// The layout check of tests/cli/html-layout.sh, appended to a copy of a
// report page after its own script: the page at the window's width (1400
// px) has no horizontal overflow (wide tables scroll inside their
// .scroll wrapper), every <section> has content below its heading, every
// internal link has its target, and the flame graph's script answers a
// click (zoom) and a search (matches).  The verdict goes into
// <body data-test="ok"> or "fail: ..." for the dumped DOM.
(function () {
	var bad = [], W = 1400;
	var de = document.documentElement;
	if (de.scrollWidth > W)
		bad.push('page width ' + de.scrollWidth);
	// elements reaching past the page that are not inside a scroll box
	var wide = 0;
	Array.prototype.forEach.call(document.body.querySelectorAll('*'), function (e) {
		if (wide < 3 && e.getBoundingClientRect().right > W + 0.5 && !e.closest('.scroll')) {
			bad.push('overflow ' + e.tagName + (e.id ? '#' + e.id : ''));
			wide++;
		}
	});
	Array.prototype.forEach.call(document.querySelectorAll('section'), function (s) {
		var h = s.querySelector('h2'), rest = 0;
		Array.prototype.forEach.call(s.children, function (c) {
			if (c !== h) rest += c.getBoundingClientRect().height;
		});
		if (!h || rest < 20 || s.textContent.length < (h ? h.textContent.length : 0) + 20)
			bad.push('empty section ' + s.id);
	});
	var links = 0;
	Array.prototype.forEach.call(document.querySelectorAll('a[href]'), function (a) {
		var href = a.getAttribute('href');
		links++;
		if (href.charAt(0) !== '#' || !document.getElementById(href.slice(1)))
			bad.push('dead link ' + href);
	});
	if (!links)
		bad.push('no navigation links');
	var fg = document.querySelector('svg.flamegraph');
	if (!fg || fg.getAttribute('data-ready') !== 'ok') {
		bad.push('flame graph script did not run');
	} else {
		var g = fg.querySelectorAll('g.frame')[1];
		var w0 = +g.querySelector('rect').getAttribute('width');
		g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
		var w1 = +g.querySelector('rect').getAttribute('width');
		if (!fg.getAttribute('data-zoom') || !(w1 > w0 || w0 > 1000))
			bad.push('click did not zoom (' + w0 + ' -> ' + w1 + ')');
		fg.flameSearch('^get_page_from_freelist$');
		if (!(+fg.getAttribute('data-hits') > 0) || !(+fg.getAttribute('data-matched') > 0))
			bad.push('search found nothing');
		if (fg.querySelectorAll('rect[fill="rgb(230,0,230)"]').length !== +fg.getAttribute('data-hits'))
			bad.push('search did not highlight its matches');
		fg.querySelector('.reset').dispatchEvent(new MouseEvent('click', {bubbles: true}));
		if (fg.getAttribute('data-zoom') !== '' ||
		    +g.querySelector('rect').getAttribute('width') !== w0)
			bad.push('reset did not restore the frame');
	}
	document.body.setAttribute('data-test', bad.length ? 'fail: ' + bad.join('; ') : 'ok');
	document.body.setAttribute('data-sections', String(document.querySelectorAll('section').length));
})();
