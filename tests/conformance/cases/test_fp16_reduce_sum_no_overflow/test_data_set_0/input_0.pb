
BxJS{S{Sû