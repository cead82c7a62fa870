"""Your game against the bots: the game stepped from Python (`game`: `es.game`), what the page
shows of it (`view`), one person's session behind a lock (`session`), the page's server on
127.0.0.1 (`server`) and the page itself (`page/`: plain HTML, SVG, JS and CSS), and the analysis
of a finished game (`analysis`)."""
