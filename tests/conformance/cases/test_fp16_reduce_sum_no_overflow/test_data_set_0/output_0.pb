
ByJS{