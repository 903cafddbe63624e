import re,sys
t=open(sys.argv[1]).read()
t=re.sub(r'_INTERNAL_[0-9a-f_]+','_INTERNAL_',t); t=re.sub(r'__N__[0-9a-f]+_','__N__',t); t=re.sub(r"\$L__BB\d+_","$L__BB_",t)
t='\n'.join(l for l in t.split('\n') if not l.strip().startswith('//'))
# split into top-level chunks at .visible/.entry/.func/.global declarations
chunks=re.split(r'\n(?=\.(?:visible|weak|extern|global|const|shared|func|entry)\b)',t)
print('\n=====\n'.join(sorted(chunks)))
