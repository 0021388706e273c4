"""Judge panels (``--judge a,b,c``): one run per judge, combined per item, and their cost."""
