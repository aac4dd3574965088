
BscaleJ@­5m±0<Ÿ-.¦