
BbiasJ7Á£º½ò(k,,¶